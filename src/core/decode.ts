import type * as z from 'zod/mini';
import { ResponseValidationError, type ValidationIssue } from '../errors/index.js';
import type { Envelope } from './api-promise.js';
import type { OperationSchemas } from './operation.js';
import type { CallSecrets } from './redact.js';
import { toIssues } from './zod-issues.js';

/** The issues of a failed parse of `input`, paths under `prefix`. */
export async function issuesOf(error: z.core.$ZodError, input: unknown, prefix = ''): Promise<ValidationIssue[]> {
  return toIssues(error, input, prefix);
}

/** A 2xx answer, decoded: `data` validated against its schema (unknown fields kept), the envelope as sent. */
export interface Decoded {
  data: unknown;
  envelope: Envelope<unknown> | undefined;
}

/**
 * Reads a 2xx body: JSON, the `{status, message, data}` envelope when `envelope` is set (success is
 * decided by the HTTP status alone, never by `status` or `message`), then `data` through `reshape`
 * and the `response` schema.
 * Anything else rejects with {@link ResponseValidationError} carrying the raw body.
 */
export async function decodeSuccess(
  response: Response,
  text: string,
  envelope: boolean,
  schemas: Pick<OperationSchemas, 'response' | 'reshape'> | undefined,
  idempotencyKey: string,
  secrets?: CallSecrets,
): Promise<Decoded> {
  const schema = schemas?.response;
  const invalid = (issues: ValidationIssue[]) => new ResponseValidationError({ status: response.status, issues, rawBody: text, idempotencyKey, secretFields: secrets?.fields, secretValues: secrets?.values });
  if (text.trim() === '') {
    if (envelope || schema) throw invalid([{ path: '', message: 'the body is empty', code: 'empty_body' }]);
    return { data: undefined, envelope: undefined };
  }
  let parsed: unknown;
  try {
    parsed = JSON.parse(text);
  } catch {
    throw invalid([{ path: '', message: `the body is not JSON (content-type: ${response.headers.get('content-type') ?? 'none'})`, code: 'invalid_json' }]);
  }
  const isEnvelope = typeof parsed === 'object' && parsed !== null && !Array.isArray(parsed) && 'data' in parsed;
  if (envelope && !isEnvelope) throw invalid([{ path: 'data', message: 'the {status, message, data} envelope is missing', code: 'invalid_envelope' }]);
  const sent = isEnvelope ? (parsed as Envelope<unknown>) : undefined;
  let data: unknown = sent ? sent.data : parsed;
  if (schema) {
    if (schemas.reshape) data = schemas.reshape(data);
    const result = schema.safeParse(data);
    if (!result.success) throw invalid(await issuesOf(result.error, data, 'data'));
    data = result.data;
  }
  return { data, envelope: sent };
}
