import { z } from 'zod';
import { E164, Email, Timestamp, Uuid } from './common.js';

export const Contact = z
  .object({
    id: Uuid,
    name: z.string(),
    email: z.string().nullable(),
    phone: z.string().nullable(),
    created_at: Timestamp,
    updated_at: Timestamp,
  })
  .meta({
    id: 'Contact',
    description:
      'A reusable recipient: reference it in gate recipients as `contact:<id>:email` or `contact:<id>:phone`.',
  });

const contactFields = {
  name: z.string().trim().min(1).max(255),
  email: Email.max(255).nullish(),
  phone: E164.nullish(),
};

export const ContactCreate = z
  .object(contactFields)
  .refine((c) => Boolean(c.email) || Boolean(c.phone), {
    message: 'at least one of email or phone is required',
    path: ['email'],
  })
  .meta({ id: 'ContactCreate', examples: [{ name: 'Ada Lovelace', email: 'ada@example.com' }] });

/** All fields optional; only supplied fields change. */
export const ContactUpdate = z
  .object({ name: contactFields.name.optional(), email: contactFields.email, phone: contactFields.phone })
  .meta({ id: 'ContactUpdate' });

export type Contact = z.infer<typeof Contact>;
export type ContactCreate = z.infer<typeof ContactCreate>;
export type ContactUpdate = z.infer<typeof ContactUpdate>;
