import { initContract } from '@ts-rest/core';
import { z } from 'zod';
import { BulkDryRun, BulkOperation } from '../schemas/bulk.js';
import { authErrors, ErrorBody, paginated, single } from '../schemas/common.js';
import {
  Destination,
  DestinationKey,
  DestinationListQuery,
  DestinationPauseBody,
  DestinationRecoverBody,
  DestinationSummary,
  DestinationTestBody,
  DestinationTestResult,
  DestinationUpdate,
} from '../schemas/destination.js';

const c = initContract();
// `host` names the destination by its origin or by a bare host (DestinationKey); the name stays for existing callers.
const hostParams = z.object({ host: DestinationKey });

export const destinationsContract = c.router({
  list: {
    method: 'GET',
    path: '/v1/destinations',
    query: DestinationListQuery,
    responses: { 200: paginated(DestinationSummary), ...authErrors },
    summary: 'List destinations',
    description:
      'The origins (scheme, host and port) the account sends to (or has settings for), in origin order, a page at a time (100 by default), each with its host and counts of its actions. docs/destinations.md.',
  },
  get: {
    method: 'GET',
    path: '/v1/destinations/:host',
    pathParams: hostParams,
    responses: { 200: single(Destination), ...authErrors },
    summary: 'A destination: its settings, state and last 24 hours',
    description:
      'Any origin answers, with the defaults when the account has never sent to it. `{host}` is an origin, URL-encoded (`http%3A%2F%2F127.0.0.1%3A9000`), or a bare host, meaning its https origin on the default port.',
  },
  update: {
    method: 'PUT',
    path: '/v1/destinations/:host',
    pathParams: hostParams,
    body: DestinationUpdate,
    responses: { 200: single(Destination), ...authErrors },
    summary: "Set a destination's flow control and circuit settings",
    description:
      'A part left out keeps its value; `null` clears it (back to the defaults). `flow` bounds requests in flight ' +
      '(`parallelism`) and per `period` (`rate`) across every worker; deliveries over it wait and spend no attempt.',
    metadata: { example: { request: { flow: { rate: 10, period: '1s', parallelism: 5 } } } },
  },
  pause: {
    method: 'POST',
    path: '/v1/destinations/:host/pause',
    pathParams: hostParams,
    body: DestinationPauseBody,
    responses: { 200: single(Destination), ...authErrors },
    summary: 'Pause every delivery to a destination (origin)',
    description:
      'Due deliveries to the origin wait (durable and due, no attempt spent) until `resume` or `until`. Pausing again replaces `until` and `note`.',
  },
  resume: {
    method: 'POST',
    path: '/v1/destinations/:host/resume',
    pathParams: hostParams,
    body: c.noBody(),
    responses: { 200: single(Destination), ...authErrors },
    summary: 'Resume deliveries to a destination (origin)',
    description: 'The held deliveries go out at once (within the flow control, if any).',
  },
  enable: {
    method: 'POST',
    path: '/v1/destinations/:host/enable',
    pathParams: hostParams,
    body: c.noBody(),
    responses: { 200: single(Destination), ...authErrors },
    summary: "Close a destination's circuit",
    description:
      'Closes the circuit whatever its state: a `disabled` one holds every delivery until this. The held deliveries go out at once (within the flow control, if any). A closed circuit answers as it is.',
  },
  recover: {
    method: 'POST',
    path: '/v1/destinations/:host/recover',
    pathParams: hostParams,
    body: DestinationRecoverBody,
    responses: { 200: single(BulkDryRun), 202: single(BulkOperation), 404: ErrorBody, ...authErrors },
    summary: "Retry the destination's actions that failed in a window",
    description:
      'A bulk `retry` (`POST /v1/bulk-operations`) of the actions to this origin (a bare host: to every origin of the host) that failed in [`since`, `until`). `dry_run` defaults to true: 200 with the counts; `false`: 202 with the operation.',
    metadata: { example: { request: { since: '2026-11-25T08:00:00Z', dry_run: false } } },
  },
  test: {
    method: 'POST',
    path: '/v1/destinations/:host/test',
    pathParams: hostParams,
    body: DestinationTestBody,
    responses: { 200: single(DestinationTestResult), 404: ErrorBody, ...authErrors },
    summary: 'Send one signed test request to a destination',
    description:
      "A `sched.test` event, signed with the account's secrets and sent through the SSRF guard, once (no retry), " +
      'now: the answer says what the receiver did. The path names an origin (sent there; `scheme` and `port` of ' +
      'the body are for a bare host, whose default is https on its default port). Not an action: it spends no ' +
      'quota and moves no circuit. 404 for an origin the account neither sends to nor has settings for; one test ' +
      "per origin every 5 seconds (429 with `Retry-After`), and none while the origin's flow control is at its " +
      'limit (429 too). ' +
      'docs/destinations.md#test-send.',
    metadata: { example: { request: { path: '/hooks/sched' } } },
  },
});
