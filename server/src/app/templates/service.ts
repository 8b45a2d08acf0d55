import type { PrivateAccess } from '../../domain/destinations/policy.js';
import { auditFields, recordAudit } from '../audit.js';
import { randomBytes, randomUUID } from 'node:crypto';
import type { Template, TemplateCreateParsed, TemplateSummary, TemplateType } from '@sched/contract';
import { planLimits } from '../../domain/quota/plans.js';
import { buildTriggerToken, triggerUrl } from '../../domain/template/token.js';
import {
  countTemplates,
  deleteTemplate,
  findTemplate,
  insertTemplate,
  listTemplates,
  lockTemplateCount,
  type TemplateRow,
  updateTemplate,
} from '../../persistence/templates.js';
import type { Principal } from '../accounts.js';
import { ForbiddenError, NotFoundError, ValidationError } from '../errors.js';
import { type Page, pageOf, pageWindow } from '../pagination.js';
import type { Clock, Store } from '../ports.js';
import {
  definitionErrors,
  EMPTY_DEFINITION,
  mergeDefinition,
  type TemplateDefinition,
  type TemplateFields,
} from './definition.js';
import { templateSummary, templateView } from './view.js';

export interface TemplateDeps {
  store: Store;
  clock: Clock;
  /** The service's public base URL, read when a trigger URL is shown (it may be known only after listen). */
  publicUrl: () => string;
  allowPrivateDestinations: PrivateAccess;
}

/** Templates, other than the trigger: every query is scoped to the caller's account. */
export class TemplateService {
  constructor(private readonly deps: TemplateDeps) {}

  /** Saves a checked template with a fresh token; refused past the plan's number of templates. */
  async create(principal: Principal, body: TemplateCreateParsed): Promise<Template> {
    const definition = mergeDefinition(EMPTY_DEFINITION, body);
    this.check(definition, principal);
    const token = buildTriggerToken(randomBytes(32));
    const now = this.deps.clock();
    const row = await this.deps.store.transaction(async (db) => {
      await lockTemplateCount(db, principal.accountId);
      const max = planLimits(principal.plan).templates;
      if ((await countTemplates(db, principal.accountId)) >= max) {
        throw new ValidationError(
          { templates: [`the ${principal.plan} plan allows ${max} templates`] },
          `template limit reached: the ${principal.plan} plan allows ${max} templates; delete one or upgrade the plan`,
        );
      }
      const inserted = await insertTemplate(db, {
        id: randomUUID(),
        account_id: principal.accountId,
        ...definition,
        token_hash: token.hash,
        token_prefix: token.prefix,
        created_at: now,
        updated_at: now,
      });
      // The trigger token is a secret: only its prefix is recorded.
      await recordAudit(db, principal.accountId, {
        action: 'template.create',
        resource: { type: 'template', id: inserted.id },
        details: { name: inserted.name, type: inserted.type, token_prefix: inserted.token_prefix },
      });
      return inserted;
    });
    return templateView(row, this.deps.publicUrl(), {
      token: token.token,
      credentials: true,
      plan: principal.plan,
    });
  }

  async list(
    accountId: string,
    q: { type?: TemplateType | undefined; page: number; per_page: number },
  ): Promise<Page<TemplateSummary>> {
    const { rows, ...counted } = await listTemplates(
      this.deps.store.sql,
      accountId,
      q.type ? { type: q.type } : {},
      pageWindow(q),
    );
    return pageOf(rows.map(templateSummary), counted, q);
  }

  /** `credentials`: whether the caller's key may see stored header values (seesCredentials). */
  async get(
    principal: Pick<Principal, 'accountId' | 'plan'>,
    id: string,
    credentials = true,
  ): Promise<Template> {
    return templateView(await this.load(principal.accountId, id), this.deps.publicUrl(), {
      credentials,
      plan: principal.plan,
    });
  }

  /** Only the supplied fields change; the template as it would stand is checked whole. The token stays. */
  async update(principal: Principal, id: string, fields: TemplateFields): Promise<Template> {
    const row = await this.deps.store.transaction(async (db) => {
      const current = await findTemplate(db, principal.accountId, id, { forUpdate: true });
      if (!current) throw new NotFoundError('template');
      const definition = mergeDefinition(current, fields);
      this.check(definition, principal);
      const updated = (await updateTemplate(db, principal.accountId, id, {
        ...definition,
        updated_at: this.deps.clock(),
      }))!;
      await recordAudit(db, principal.accountId, {
        action: 'template.update',
        resource: { type: 'template', id },
        details: { fields: auditFields(fields) },
      });
      return updated;
    });
    return templateView(row, this.deps.publicUrl(), { credentials: true, plan: principal.plan });
  }

  /** The row goes, and with it the only copy of the token's hash: the URL answers 404 from now on. */
  async delete(accountId: string, id: string): Promise<void> {
    await this.deps.store.transaction(async (db) => {
      if (!(await deleteTemplate(db, accountId, id))) throw new NotFoundError('template');
      await recordAudit(db, accountId, { action: 'template.delete', resource: { type: 'template', id } });
    });
  }

  /** A new token replaces the old one's hash, so the old URL answers 404 from this moment. */
  async regenerateToken(
    accountId: string,
    id: string,
  ): Promise<{ message: string; data: { trigger_token: string; trigger_url: string } }> {
    const token = buildTriggerToken(randomBytes(32));
    await this.deps.store.transaction(async (db) => {
      const row = await updateTemplate(db, accountId, id, {
        token_hash: token.hash,
        token_prefix: token.prefix,
        updated_at: this.deps.clock(),
      });
      if (!row) throw new NotFoundError('template');
      // Only the new token's prefix: the token is the trigger's secret.
      await recordAudit(db, accountId, {
        action: 'template.regenerate_token',
        resource: { type: 'template', id },
        details: { token_prefix: token.prefix },
      });
    });
    return {
      message: 'Trigger token regenerated; the previous URL no longer works',
      data: { trigger_token: token.token, trigger_url: triggerUrl(this.deps.publicUrl(), token.token) },
    };
  }

  async toggleActive(
    accountId: string,
    id: string,
  ): Promise<{ message: string; data: { id: string; is_active: boolean } }> {
    const row = await this.deps.store.transaction(async (db) => {
      const current = await findTemplate(db, accountId, id, { forUpdate: true });
      if (!current) throw new NotFoundError('template');
      const updated = (await updateTemplate(db, accountId, id, {
        is_active: !current.is_active,
        updated_at: this.deps.clock(),
      }))!;
      await recordAudit(db, accountId, {
        action: updated.is_active ? 'template.activate' : 'template.deactivate',
        resource: { type: 'template', id },
        details: { is_active: updated.is_active },
      });
      return updated;
    });
    return {
      message: row.is_active ? 'Template activated' : 'Template deactivated; its URL answers 404',
      data: { id: row.id, is_active: row.is_active },
    };
  }

  async limits(
    principal: Principal,
  ): Promise<{ current: number; max: number; remaining: number; plan: Principal['plan'] }> {
    const current = await countTemplates(this.deps.store.sql, principal.accountId);
    const max = planLimits(principal.plan).templates;
    return { current, max, remaining: Math.max(0, max - current), plan: principal.plan };
  }

  private check(definition: TemplateDefinition, principal: Principal): void {
    // As for chains themselves: a plan without them is refused outright.
    if (definition.type === 'chain' && !planLimits(principal.plan).chains) {
      throw new ForbiddenError(
        `chain templates need the business plan; this account is on the ${principal.plan} plan`,
        'plan_required',
      );
    }
    const errors = definitionErrors(definition, {
      plan: principal.plan,
      allowPrivateDestinations: this.deps.allowPrivateDestinations,
    });
    if (Object.keys(errors).length > 0) throw new ValidationError(errors);
  }

  private async load(accountId: string, id: string): Promise<TemplateRow> {
    const row = await findTemplate(this.deps.store.sql, accountId, id);
    if (!row) throw new NotFoundError('template');
    return row;
  }
}
