import * as z from 'zod/mini';
import type { RegistrationFields } from './registration.js';

// The schema of `OpenBanking.register`'s body, in its own module so that zod loads with the first
// registration rather than with the package.

const text = z.string().check(z.minLength(1), z.maxLength(255));

export const registrationRequestSchema = z.strictObject({
  username: text,
  password: text,
  app_name: text,
  app_description: z.optional(z.string().check(z.maxLength(255))),
  app_developer_name: z.optional(text),
  app_developer_address: z.optional(text),
  app_developer_contact_email: z.optional(z.string().check(z.regex(/^[^\s@]+@[^\s@]+$/, 'must be an email address'))),
  app_developer_contact_phone: z.optional(z.string().check(z.regex(/^\+?\d{7,15}$/, 'must be a phone number, e.g. +2348012345678'))),
  redirect_url: z.string().check(z.refine((v) => URL.canParse(v) && !v.includes('#'), 'must be an absolute URL without a fragment')),
}) satisfies z.ZodMiniType<RegistrationFields>;
