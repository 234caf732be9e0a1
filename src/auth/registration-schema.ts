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
  // Written as people write them: `+2348012345678`, `+234 801 234 5678`, `0801-234-5678`, `(01) 234 5678`.
  app_developer_contact_phone: z.optional(
    z.string().check(z.refine((v) => /^\+?[\d\s().-]+$/.test(v) && /^(\D*\d){7,15}\D*$/.test(v), 'must be a phone number of 7 to 15 digits, e.g. +2348012345678')),
  ),
  redirect_url: z.string().check(z.refine((v) => URL.canParse(v) && !v.includes('#'), 'must be an absolute URL without a fragment')),
}) satisfies z.ZodMiniType<RegistrationFields>;
