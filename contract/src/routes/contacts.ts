import { initContract } from '@ts-rest/core';
import { z } from 'zod';
import { authErrors, ErrorBody, single, Uuid } from '../schemas/common.js';
import { Contact, ContactCreate, ContactUpdate } from '../schemas/contact.js';

const c = initContract();
const idParams = z.object({ id: Uuid });

export const contactsContract = c.router({
  list: {
    method: 'GET',
    path: '/v1/contacts',
    responses: { 200: z.object({ data: z.array(Contact) }), ...authErrors },
    summary: 'List contacts',
    description: 'All contacts of the account, ordered by name.',
  },
  create: {
    method: 'POST',
    path: '/v1/contacts',
    body: ContactCreate,
    responses: { 201: single(Contact), ...authErrors },
    summary: 'Create a contact',
    description:
      'At least one of `email` or `phone`. Approvals can then name the contact instead of an address.',
  },
  get: {
    method: 'GET',
    path: '/v1/contacts/:id',
    pathParams: idParams,
    responses: { 200: single(Contact), 404: ErrorBody, ...authErrors },
    summary: 'Get a contact',
    description: '404 for an unknown id or one of another account.',
  },
  update: {
    method: 'PUT',
    path: '/v1/contacts/:id',
    pathParams: idParams,
    body: ContactUpdate,
    responses: { 200: single(Contact), 404: ErrorBody, ...authErrors },
    summary: 'Update a contact',
    description: 'Only supplied fields change; `null` clears email or phone (one of the two must remain).',
  },
  delete: {
    method: 'DELETE',
    path: '/v1/contacts/:id',
    pathParams: idParams,
    body: c.noBody(),
    responses: { 204: c.noBody(), 404: ErrorBody, ...authErrors },
    summary: 'Delete a contact',
    description: 'Permanent. Approvals already sent to the contact keep their recipients.',
  },
});
