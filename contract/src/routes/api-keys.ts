import { initContract } from '@ts-rest/core';
import { z } from 'zod';
import {
  ApiKey,
  ApiKeyCreate,
  ApiKeyRotate,
  ApiKeyRotated,
  ApiKeyWithSecret,
  SigningSecret,
  SigningSecretRotate,
} from '../schemas/api-key.js';
import { authErrors, ErrorBody, single, Uuid } from '../schemas/common.js';

const c = initContract();
const idParams = z.object({ id: Uuid });
// Every route here needs the `admin` scope, whatever its method (server/src/http/auth.ts reads `scope`).
const metadata = { scope: 'admin' } as const;
const ADMIN = 'Needs an API key with the `admin` scope.';

export const apiKeysContract = c.router({
  list: {
    method: 'GET',
    path: '/v1/api-keys',
    responses: { 200: z.object({ data: z.array(ApiKey) }), ...authErrors },
    metadata,
    summary: 'List API keys',
    description: `The account's live keys (neither revoked nor expired), oldest first, without their secrets. ${ADMIN}`,
  },
  create: {
    method: 'POST',
    path: '/v1/api-keys',
    body: ApiKeyCreate,
    responses: { 201: single(ApiKeyWithSecret), ...authErrors },
    metadata,
    summary: 'Create an API key',
    description: `Answers the secret in \`data.key\`, this once: store it now. ${ADMIN}`,
  },
  revoke: {
    method: 'DELETE',
    path: '/v1/api-keys/:id',
    pathParams: idParams,
    body: c.noBody(),
    responses: { 204: c.noBody(), 404: ErrorBody, ...authErrors },
    metadata,
    summary: 'Revoke an API key',
    description: `The key stops working at once, in every server process. ${ADMIN}`,
  },
  rotate: {
    method: 'POST',
    path: '/v1/api-keys/:id/rotate',
    pathParams: idParams,
    body: ApiKeyRotate,
    responses: { 201: ApiKeyRotated, 404: ErrorBody, ...authErrors },
    metadata,
    summary: 'Rotate an API key',
    description: `Creates a new key with the same name and scopes and answers its secret once; the old key keeps working for \`grace_period\` (default 24 h), then expires. ${ADMIN}`,
  },
  getSigningSecret: {
    method: 'GET',
    path: '/v1/signing-secret',
    responses: { 200: single(SigningSecret), ...authErrors },
    metadata,
    summary: "Show the account's signing secret",
    description: `Actions, chains and template-made actions without a \`webhook_secret\` of their own are signed with this secret (their requests and callbacks). Every account is made with one; \`secret\` is null only after it was removed. ${ADMIN}`,
  },
  createSigningSecret: {
    method: 'POST',
    path: '/v1/signing-secret',
    body: SigningSecretRotate,
    responses: { 201: single(SigningSecret), ...authErrors },
    metadata,
    summary: 'Make a new signing secret (rotate)',
    description: `Makes a new secret for the account, replacing the current one (a rotation). Live actions, series and chains that were signed with the account's secret follow it at once; through \`overlap\` (default 24 h) every request and callback carries a second signature made with the replaced secret, so receivers can move to the new one (\`verifyWebhook\` takes several secrets). \`overlap: "0s"\` stops the replaced secret at once, as after a leak. An action's own \`webhook_secret\` is never changed. ${ADMIN}`,
  },
  deleteSigningSecret: {
    method: 'DELETE',
    path: '/v1/signing-secret',
    body: c.noBody(),
    responses: { 204: c.noBody(), ...authErrors },
    metadata,
    summary: 'Remove the signing secret',
    description: `What the account sends without a \`webhook_secret\` of its own is no longer signed (live actions and chains included). ${ADMIN}`,
  },
});
