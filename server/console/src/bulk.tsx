// The bulk-operation display every panel that acts on many actions shares (failed inbox, destination recovery, the
// bulk operations panel): the dry run's counts always on screen before anything runs, then the progress until the
// operation ends.
import type { BulkOperationKind } from '@sched/contract';
import type { BulkDryRun, BulkOperation, SchedClient } from '@sched/sdk';
import { useEffect, useRef, useState } from 'preact/hooks';
import { ErrorNote, Loading, useConsole } from './ui.js';

/** What each operation did to an action, for "2 retried, 1 skipped". */
export const DONE: Record<BulkOperationKind, string> = {
  cancel: 'cancelled',
  retry: 'retried',
  replay: 'replayed',
  pause: 'paused',
  resume: 'resumed',
  reschedule: 'rescheduled',
  run: 'run now',
};

/** A bulk operation's progress: a bar while it runs, its counts once it has ended. */
export function BulkProgress({ op }: { op: BulkOperation }) {
  return (
    <div role="status" aria-live="polite" class="bulk-progress">
      <progress
        max={Math.max(1, op.matched)}
        value={op.processed}
        aria-label="Progress of the bulk operation"
      />{' '}
      {op.status === 'running'
        ? `${op.processed} of ${op.matched} processed`
        : `${op.status}: ${op.affected} ${DONE[op.operation]}, ${op.skipped} skipped, ${op.failed} failed`}
    </div>
  );
}

/**
 * A dry run first (its counts are always shown before anything runs), then the run from its button only, whose
 * progress is read until it ends. The caller keys it by what it acts on, so a new target is a new dry run.
 */
export function BulkRun(props: {
  title: string;
  operation: BulkOperationKind;
  dryRun: (client: SchedClient) => Promise<BulkDryRun>;
  start: (client: SchedClient) => Promise<BulkOperation>;
  onDone: () => void;
}) {
  const { client } = useConsole();
  const [dry, setDry] = useState<BulkDryRun>();
  const [op, setOp] = useState<BulkOperation>();
  const [error, setError] = useState<Error>();
  const live = useRef(true);
  // Once per mount: the caller's key names the target.
  useEffect(() => {
    live.current = true;
    props.dryRun(client).then(
      (d) => live.current && setDry(d),
      (err: Error) => live.current && setError(err),
    );
    return () => {
      live.current = false;
    };
  }, []);
  const start = async () => {
    setError(undefined);
    try {
      const started = await props.start(client);
      setOp(started);
      const done = await client.bulkOperations.waitForCompletion(started.id, {
        intervalMs: 500,
        onProgress: (p) => live.current && setOp(p),
      });
      if (live.current) setOp(done);
      props.onDone();
    } catch (err) {
      setError(err as Error);
    }
  };
  const done = DONE[props.operation];
  const verb = `${props.operation[0]!.toUpperCase()}${props.operation.slice(1)}`;
  return (
    <section class="bulk" aria-labelledby="bulk-title">
      <h2 id="bulk-title">{props.title}</h2>
      <ErrorNote error={error} />
      {!dry && !error && <Loading what="the dry run" />}
      {dry && (
        <p role="status" class="dry-run">
          Dry run: {dry.matched} matched, <strong>{dry.eligible}</strong> would be {done}
          {Object.entries(dry.ineligible).length > 0 &&
            `, ${Object.entries(dry.ineligible)
              .map(([s, n]) => `${n} ${s} skipped`)
              .join(', ')}`}
          .
        </p>
      )}
      {dry && !op && dry.eligible > 0 && (
        <button type="button" class="primary" onClick={start}>
          {verb} {dry.eligible} action{dry.eligible === 1 ? '' : 's'}
        </button>
      )}
      {op && <BulkProgress op={op} />}
    </section>
  );
}
