import type { Contact as ContactDto, ContactCreate, ContactUpdate } from '@sched/contract';
import type { Database } from '../../persistence/database.js';
import { contactRecords } from '../../persistence/directory.js';
import type { Contact } from '../../persistence/entities/contact.js';
import { auditFields, recordAudit } from '../audit.js';
import { NotFoundError, ValidationError } from '../errors.js';
import { shownAddress } from '../../domain/auth/api-key.js';

/** A contact as the API shows it; a key without `write` sees its email and phone masked (docs/security.md). */
function contactDto(c: Contact, credentials = true): ContactDto {
  return {
    id: c.id,
    name: c.name,
    email: shownAddress(c.email ?? null, credentials),
    phone: shownAddress(c.phone ?? null, credentials),
    created_at: c.createdAt.toISOString(),
    updated_at: c.updatedAt.toISOString(),
  };
}

/** Contacts: every query is scoped to the caller's account; another account's id is a 404. */
export class ContactService {
  constructor(private readonly database: Database) {}

  private get records() {
    return contactRecords(this.database);
  }

  async list(accountId: string, credentials = true): Promise<ContactDto[]> {
    return (await this.records.list(accountId)).map((c) => contactDto(c, credentials));
  }

  async get(accountId: string, id: string, credentials = true): Promise<ContactDto> {
    const contact = await this.records.find(accountId, id);
    if (!contact) throw new NotFoundError('contact');
    return contactDto(contact, credentials);
  }

  // Each change and its audit event commit together. The log names the contact and the fields that changed, not
  // their addresses: it is kept append-only, so personal data stays in the contact.
  async create(accountId: string, input: ContactCreate): Promise<ContactDto> {
    return this.database.transaction(async (db) => {
      const contact = await this.records.create(accountId, {
        name: input.name,
        email: input.email ?? null,
        phone: input.phone ?? null,
      });
      await recordAudit(db, accountId, {
        action: 'contact.create',
        resource: { type: 'contact', id: contact.id },
        details: {
          name: contact.name,
          fields: auditFields({
            name: input.name,
            email: input.email ?? undefined,
            phone: input.phone ?? undefined,
          }),
        },
      });
      return contactDto(contact);
    });
  }

  async update(accountId: string, id: string, input: ContactUpdate): Promise<ContactDto> {
    return this.database.transaction(async (db) => {
      const contact = await this.records.update(accountId, id, (c) => {
        if (input.name !== undefined) c.name = input.name;
        if (input.email !== undefined) c.email = input.email;
        if (input.phone !== undefined) c.phone = input.phone;
        if (!c.email && !c.phone) {
          throw ValidationError.field('email', 'at least one of email or phone is required');
        }
      });
      if (!contact) throw new NotFoundError('contact');
      await recordAudit(db, accountId, {
        action: 'contact.update',
        resource: { type: 'contact', id },
        details: { name: contact.name, fields: auditFields(input) },
      });
      return contactDto(contact);
    });
  }

  async delete(accountId: string, id: string): Promise<void> {
    await this.database.transaction(async (db) => {
      if (!(await this.records.delete(accountId, id))) throw new NotFoundError('contact');
      await recordAudit(db, accountId, { action: 'contact.delete', resource: { type: 'contact', id } });
    });
  }
}
