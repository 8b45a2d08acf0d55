// The layering rules of docs/architecture.md, checked in `npm test` (dependency-cruiser).
// What may import what: domain imports nothing of ours but the contract's vocabulary; app never imports
// Fastify, http/, jobs/, outbound/ or channels/; only persistence/ imports pg, kysely or MikroORM, and only
// jobs/queue.ts imports pg-boss; http/ calls app/, never
// persistence/; channel adapters know only their interface, the message shapes, their vendor client and config; the SDK imports
// only the contract; the CLI's API verbs use only the SDK; the console imports only the contract, the SDK and preact.
/** A regex matching the resolved path of these npm packages (pnpm keeps them under node_modules/.pnpm). */
const pkg = (names) => `node_modules/(${names})/`;
const notTest = '\\.test\\.ts$';

/** @type {import('dependency-cruiser').IConfiguration} */
module.exports = {
  forbidden: [
    {
      name: 'domain-is-pure',
      comment:
        'domain/ holds pure rules: no framework, no database, nothing of ours outside itself but the contract.',
      severity: 'error',
      from: { path: '^server/src/domain/' },
      to: {
        // ipaddr.js parses addresses for the destination policy; tldts is the public-suffix list (registrable
        // domains for the thresholds); vitest and fast-check are the tests' tools.
        pathNot: [
          '^server/src/domain/',
          '^contract/',
          pkg('luxon|zod|ipaddr\\.js|tldts|vitest|fast-check'),
          '^(node:)?crypto$',
        ],
        dependencyTypesNot: ['type-only'],
      },
    },
    {
      name: 'app-has-no-transport',
      comment: 'Use cases never see HTTP or the job triggers.',
      severity: 'error',
      from: { path: '^server/src/app/' },
      to: { path: ['^server/src/(http|jobs)/', pkg('fastify|@fastify/[^/]+|pg-boss|@ts-rest/fastify')] },
    },
    {
      name: 'app-has-no-adapters',
      comment:
        'Use cases reach the outgoing HTTP client and the notification channels through ports (app/ports.ts), never directly.',
      severity: 'error',
      from: { path: '^server/src/app/' },
      to: { path: '^server/src/(outbound|channels)/' },
    },
    {
      name: 'actions-never-import-approvals',
      comment:
        'Approvals build on the create core (a granted gate creates its request); the create core reaches approvals through the ApprovalGates port (app/ports.ts), so the two folders never import each other.',
      severity: 'error',
      from: { path: '^server/src/app/actions/' },
      to: { path: '^server/src/app/approvals/' },
    },
    {
      name: 'features-plug-in',
      comment:
        'A feature (server/src/features/) is plugged in by the composition root only: nothing central names a feature, so adding one touches its own module and the list in features/index.ts.',
      severity: 'error',
      from: { path: '^server/src/', pathNot: ['^server/src/(compose|features)/'] },
      to: { path: '^server/src/features/' },
    },
    {
      name: 'features-stand-alone',
      comment:
        'Features never import one another (only the shape, features/feature.ts); what two features share is built once by the composition root (compose/api.ts SharedServices).',
      severity: 'error',
      from: { path: '^server/src/features/', pathNot: ['^server/src/features/index\\.ts$'] },
      to: { path: '^server/src/features/', pathNot: ['^server/src/features/feature\\.ts$'] },
    },
    {
      name: 'routes-live-in-features',
      comment:
        'Route handlers are mounted by their feature: the HTTP app (http/app.ts) and the rest of http/ never import one, so the app keeps only server options and cross-cutting hooks.',
      severity: 'error',
      from: { path: '^server/src/', pathNot: ['^server/src/(features|http/handlers)/'] },
      to: { path: '^server/src/http/handlers/' },
    },
    {
      name: 'only-the-queue-talks-pg-boss',
      comment: 'pg-boss is one adapter: jobs/queue.ts. Everything else sends and works through its JobQueue.',
      severity: 'error',
      from: { path: '^(server|cli|contract|sdk)/src/', pathNot: ['^server/src/jobs/queue\\.ts$', notTest] },
      to: { path: pkg('pg-boss'), dependencyTypesNot: ['type-only'] },
    },
    {
      name: 'only-persistence-talks-sql',
      comment: 'SQL and its drivers live in persistence/ only.',
      severity: 'error',
      from: { path: '^(server|cli|contract|sdk)/src/', pathNot: ['^server/src/persistence/', notTest] },
      to: { path: pkg('pg|pg-pool|kysely|@mikro-orm/[^/]+'), dependencyTypesNot: ['type-only'] },
    },
    {
      name: 'http-calls-app-not-persistence',
      severity: 'error',
      from: { path: '^server/src/http/' },
      to: { path: '^server/src/persistence/' },
    },
    {
      name: 'channels-know-only-their-interface',
      comment:
        'An adapter knows its interface, the message shapes it sends (domain/approval/messages.ts, domain/alerts/message.ts) and config.',
      severity: 'error',
      from: { path: '^server/src/channels/' },
      to: {
        path: '^server/src/',
        pathNot: [
          '^server/src/channels/',
          '^server/src/domain/approval/messages\\.ts$',
          '^server/src/domain/alerts/message\\.ts$',
          '^server/src/config\\.ts$',
        ],
      },
    },
    {
      name: 'sdk-imports-only-the-contract',
      severity: 'error',
      from: { path: '^sdk/src/' },
      to: { path: '^(server|cli)/' },
    },
    {
      name: 'cli-api-verbs-use-the-sdk',
      comment:
        'Only the admin verbs (accounts, admin keys, migrate, serve, outbox, purge) may load the server package, through server-package.ts.',
      severity: 'error',
      from: {
        path: '^cli/src/',
        pathNot: [
          '^cli/src/server-package\\.ts$',
          '^cli/src/commands/(admin|accounts|outbox)/',
          '^cli/src/commands/(serve|migrate|purge)\\.ts$',
          notTest,
        ],
      },
      to: { path: '^server/' },
    },
    {
      name: 'console-imports-only-the-contract-and-sdk',
      comment:
        'The console (server/console) is a client of the API like the others: besides its own files it imports only @sched/contract (the state tables under @sched/contract/machines), @sched/sdk and preact. Nothing of the server, no zod, nothing of Node.',
      severity: 'error',
      from: { path: '^server/console/src/' },
      to: {
        // The workspace packages resolve to their build (contract/dist, sdk/dist; excluded from the graph below), or
        // to node_modules/@sched/... where they are installed as packages.
        pathNot: ['^server/console/src/', '^(contract|sdk)/dist/', pkg('@sched/(contract|sdk)|preact')],
      },
    },
    {
      name: 'no-circular',
      severity: 'error',
      from: { path: '^(server|contract|sdk|cli)/src/' },
      to: { circular: true, viaOnly: { dependencyTypesNot: ['type-only'] } },
    },
  ],
  options: {
    doNotFollow: { path: 'node_modules' },
    // Only the workspace's own build output: packages resolve under node_modules/…/dist and must stay in the graph
    // (doNotFollow keeps them as leaves), or the rules on kysely, pg-boss and pg would match nothing.
    exclude: { path: ['^(contract|server|sdk|cli)/dist/', '^(contract|server|sdk|cli)/.*\\.d\\.ts$'] },
    tsPreCompilationDeps: true,
    tsConfig: { fileName: 'tsconfig.base.json' },
    enhancedResolveOptions: { exportsFields: ['exports'], conditionNames: ['import', 'types', 'default'] },
  },
};
