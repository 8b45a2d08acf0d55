import { randomUUID } from 'node:crypto';
import type { Contact as ContactDto, ContactCreate, ContactUpdate } from '@sched/contract';
import type { Orm } from '../persistence/orm.js';
import { type Contact, ContactSchema } from '../persistence/entities/contact.js';
import { NotFoundError, ValidationError } from './errors.js';

export function contactDto(c: Contact): ContactDto {
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
  constructor(private readonly orm: Orm) {}

  async list(accountId: string): Promise<ContactDto[]> {
    const em = this.orm.em.fork();
    const rows = await em.find(
      ContactSchema,
      { account: accountId },
      { orderBy: { name: 'asc', createdAt: 'asc' } },
    );
    return rows.map(contactDto);
  }

  async get(accountId: string, id: string): Promise<ContactDto> {
    return contactDto(await this.load(this.orm.em.fork(), accountId, id));
  }

  /** Used by recipients (`contact:<id>:email`) as well as the API. */
  async find(accountId: string, id: string): Promise<Contact | null> {
    return this.orm.em.fork().findOne(ContactSchema, { id, account: accountId });
  }

  async create(accountId: string, input: ContactCreate): Promise<ContactDto> {
    const em = this.orm.em.fork();
    const contact = em.create(ContactSchema, {
      id: randomUUID(),
      account: accountId,
      name: input.name,
      email: input.email ?? null,
      phone: input.phone ?? null,
    });
    await em.flush();
    return contactDto(contact);
  }

  async update(accountId: string, id: string, input: ContactUpdate): Promise<ContactDto> {
    const em = this.orm.em.fork();
    const contact = await this.load(em, accountId, id);
    if (input.name !== undefined) contact.name = input.name;
    if (input.email !== undefined) contact.email = input.email;
    if (input.phone !== undefined) contact.phone = input.phone;
    if (!contact.email && !contact.phone) {
      throw ValidationError.field('email', 'at least one of email or phone is required');
    }
    await em.flush();
    return contactDto(contact);
  }

  async delete(accountId: string, id: string): Promise<void> {
    const em = this.orm.em.fork();
    const contact = await this.load(em, accountId, id);
    em.remove(contact);
    await em.flush();
  }

  private async load(em: ReturnType<Orm['em']['fork']>, accountId: string, id: string): Promise<Contact> {
    const contact = await em.findOne(ContactSchema, { id, account: accountId });
    if (!contact) throw new NotFoundError('contact');
    return contact;
  }
}
