// What @sched/sdk adds to a bundled app: a tiny app (createClient + actions.create + verifyWebhook) bundled and
// minified for the browser and for Node, against the same app without the SDK, in bytes raw and gzipped.
//
//   node bench/sdk-weight.mjs [--json] [--sdk <entry>]
//
// The SDK is the `pnpm build` output (sdk/dist, the contract from contract/dist); `--sdk sdk/bundle/index.js`
// measures the published bundle instead (`pnpm --filter @sched/sdk bundle` first). The bundler is rolldown, through
// tsdown (the tool that builds the published package); no other bundler is a dependency of this repository.
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { gzipSync } from 'node:zlib';
import { build } from 'tsdown';

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const WORK = path.join(ROOT, 'bench', '.tmp', 'sdk-weight');

const args = process.argv.slice(2);
const json = args.includes('--json');
const sdkFlag = args.indexOf('--sdk');
const sdkEntry = path.resolve(ROOT, sdkFlag >= 0 ? args[sdkFlag + 1] : 'sdk/dist/index.js');

// The code the SDK is measured around: the same global in both apps, so only the SDK differs.
const EMPTY_APP = `globalThis.app = { create: (body) => body, verify: (input) => input };\n`;
const SDK_APP = `import { createClient, verifyWebhook } from ${JSON.stringify(sdkEntry)};
const sched = createClient({ baseUrl: 'https://sched.example', apiKey: 'sk_example' });
globalThis.app = { create: (body) => sched.actions.create(body), verify: (input) => verifyWebhook(input) };
`;

/** One minified, fully bundled build of `source` for `platform`; its size raw and gzipped. */
async function bundle(name, source, platform) {
  const dir = path.join(WORK, `${name}-${platform}`);
  fs.rmSync(dir, { recursive: true, force: true });
  fs.mkdirSync(dir, { recursive: true });
  const entry = path.join(dir, 'entry.js');
  fs.writeFileSync(entry, source);
  const out = path.join(dir, 'out');
  await build({
    cwd: dir,
    entry: [entry],
    outDir: out,
    platform,
    format: 'esm',
    target: 'es2022',
    minify: true,
    dts: false,
    config: false,
    tsconfig: false,
    noExternal: [/./],
    // The published package is one module with the contract inlined and `sideEffects: false`; its workspace build
    // (sdk/dist, contract/dist) is many modules: treat them the same way.
    treeshake: { moduleSideEffects: [{ test: /[\\/](sdk|contract)[\\/]dist[\\/]/, sideEffects: false }] },
    logLevel: 'silent',
  });
  const files = fs.readdirSync(out).filter((f) => f.endsWith('.js') || f.endsWith('.mjs'));
  const code = Buffer.concat(files.map((f) => fs.readFileSync(path.join(out, f))));
  return { raw: code.length, gzip: gzipSync(code, { level: 9 }).length };
}

if (!fs.existsSync(sdkEntry)) {
  console.error(`${path.relative(ROOT, sdkEntry)} is missing: run \`pnpm build\` first`);
  process.exit(1);
}

const results = {};
for (const platform of ['browser', 'node']) {
  const empty = await bundle('empty', EMPTY_APP, platform);
  const app = await bundle('sdk', SDK_APP, platform);
  results[platform] = {
    empty,
    app,
    sdk: { raw: app.raw - empty.raw, gzip: app.gzip - empty.gzip },
  };
}

if (json) {
  console.log(JSON.stringify({ sdk: path.relative(ROOT, sdkEntry), ...results }));
} else {
  const kb = (n) => `${(n / 1024).toFixed(1)} KiB`;
  console.log(`@sched/sdk (${path.relative(ROOT, sdkEntry)}) in a minified app bundle:`);
  for (const [platform, r] of Object.entries(results)) {
    console.log(
      `  ${platform.padEnd(7)} +${kb(r.sdk.raw)} raw, +${kb(r.sdk.gzip)} gzip` +
        ` (app ${r.app.raw} / ${r.app.gzip} bytes, empty app ${r.empty.raw} / ${r.empty.gzip})`,
    );
  }
}
