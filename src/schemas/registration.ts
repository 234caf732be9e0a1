import * as z from 'zod/mini';
import { matching, str, text, upTo } from './common.js';

// The schema of `OpenBanking.register`'s body. `auth/register.ts` (loaded with the first registration)
// validates with it; `RegistrationFields` (auth/registration.ts) is its input type.

/** The spec's nine registration fields; `RegistrationFields` is its input type. */
export const registrationRequestSchema = z.strictObject({
  /** Login used later to fetch the credentials (`GET /dcr`); unique, and never reusable. */
  username: text(),
  /** Password of that login. */
  password: text(),
  /** The application's name, shown to customers on the consent page. */
  app_name: text(),
  /** What the application does. */
  app_description: z.optional(upTo()),
  /** Who builds it. */
  app_developer_name: z.optional(text()),
  /** The developer's postal address. */
  app_developer_address: z.optional(text()),
  /** The developer's email address. */
  app_developer_contact_email: z.optional(matching(/^[^\s@]+@[^\s@]+$/, 'must be an email address')),
  /** The developer's phone number, e.g. `+2348012345678`. */
  // Written as people write them: `+2348012345678`, `+234 801 234 5678`, `0801-234-5678`, `(01) 234 5678`.
  app_developer_contact_phone: z.optional(
    str().check(z.refine((v) => /^\+?[\d\s().-]+$/.test(v) && /^(\D*\d){7,15}\D*$/.test(v), 'must be a phone number of 7 to 15 digits, e.g. +2348012345678')),
  ),
  /** Where the identity host sends the customer back after consent: an absolute URL without a fragment. */
  redirect_url: str().check(z.refine((v) => URL.canParse(v) && !v.includes('#'), 'must be an absolute URL without a fragment')),
});
