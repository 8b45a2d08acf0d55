import type { Contact as ContactDto, ContactCreate, ContactUpdate } from '@sched/contract';
import type { Database } from '../persistence/database.js';
import { contactRecords } from '../persistence/directory.js';
import type { Contact } from '../persistence/entities/contact.js';
import { NotFoundError, ValidationError } from './errors.js';

function contactDto(c: Contact): ContactDto {
  return {
    id: c.id,
    name: c.name,
    email: c.email ?? null,
    phone: c.phone ?? null,
    created_at: c.createdAt.toISOString(),
    updated_at: c.updatedAt.toISOString(),
  };
}

/** Contacts (spec 4.5): every query is scoped to the caller's account; another account's id is a 404. */
export class ContactService {
  constructor(private readonly database: Database) {}

  private get records() {
    return contactRecords(this.database);
  }

  async list(accountId: string): Promise<ContactDto[]> {
    return (await this.records.list(accountId)).map(contactDto);
  }

  async get(accountId: string, id: string): Promise<ContactDto> {
    const contact = await this.records.find(accountId, id);
    if (!contact) throw new NotFoundError('contact');
    return contactDto(contact);
  }

  async create(accountId: string, input: ContactCreate): Promise<ContactDto> {
    return contactDto(
      await this.records.create(accountId, {
        name: input.name,
        email: input.email ?? null,
        phone: input.phone ?? null,
      }),
    );
  }

  async update(accountId: string, id: string, input: ContactUpdate): Promise<ContactDto> {
    const contact = await this.records.update(accountId, id, (c) => {
      if (input.name !== undefined) c.name = input.name;
      if (input.email !== undefined) c.email = input.email;
      if (input.phone !== undefined) c.phone = input.phone;
      if (!c.email && !c.phone) {
        throw ValidationError.field('email', 'at least one of email or phone is required');
      }
    });
    if (!contact) throw new NotFoundError('contact');
    return contactDto(contact);
  }

  async delete(accountId: string, id: string): Promise<void> {
    if (!(await this.records.delete(accountId, id))) throw new NotFoundError('contact');
  }
}
