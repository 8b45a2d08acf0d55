export { createClient, createRawClient, unwrap } from './client.js';
export type { ClientOptions, SchedClient } from './client.js';
export { SchedApiError, SchedConnectionError } from './errors.js';
export type { Contact, ContactCreate, ContactUpdate } from '@sched/contract';
