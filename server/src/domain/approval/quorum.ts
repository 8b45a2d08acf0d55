/**
 * The quorum rule of an approval gate (`confirmation_mode: "quorum"`): at least `minApprovals` confirmations from
 * recipients who may approve, every required recipient among them. Pure: the gate's recipients in, its decision
 * out. One table decides, read top to bottom (the first row that matches wins):
 *
 * | condition                                                                    | decision  |
 * |------------------------------------------------------------------------------|-----------|
 * | a required recipient declined                                                | declined  |
 * | confirmations + still pending eligible recipients < minApprovals             | declined  |
 * | confirmations >= minApprovals and every required recipient confirmed         | granted   |
 * | otherwise                                                                    | waiting   |
 */

export interface QuorumVoter {
  status: 'pending' | 'confirmed' | 'declined' | 'snoozed';
  required: boolean;
  /** The requester (`gate.exclude_requester`): their answer never counts. */
  excluded: boolean;
}

export type QuorumDecision =
  | { kind: 'granted' }
  | { kind: 'declined'; reason: 'required_declined' | 'unreachable' }
  | { kind: 'waiting'; approvalsNeeded: number };

const open = (v: QuorumVoter) => v.status === 'pending' || v.status === 'snoozed';

export function quorumDecision(minApprovals: number, voters: readonly QuorumVoter[]): QuorumDecision {
  const eligible = voters.filter((v) => !v.excluded);
  const confirmed = eligible.filter((v) => v.status === 'confirmed').length;
  const stillOpen = eligible.filter(open).length;
  const required = eligible.filter((v) => v.required);
  const rows: [boolean, () => QuorumDecision][] = [
    [
      required.some((v) => v.status === 'declined'),
      () => ({ kind: 'declined', reason: 'required_declined' }),
    ],
    [confirmed + stillOpen < minApprovals, () => ({ kind: 'declined', reason: 'unreachable' })],
    [
      // Required recipients still open also keep it waiting; they count towards the minimum once they confirm.
      confirmed >= minApprovals && required.every((v) => v.status === 'confirmed'),
      () => ({ kind: 'granted' }),
    ],
    [
      true,
      () => ({
        kind: 'waiting',
        approvalsNeeded: Math.max(
          minApprovals - confirmed,
          required.filter((v) => v.status !== 'confirmed').length,
        ),
      }),
    ],
  ];
  return rows.find(([when]) => when)![1]();
}

/**
 * Whether a quorum is reachable at all when the gate is created: enough recipients who may approve, and no required
 * recipient who is the requester. Null when it is; else why not, for a 422.
 */
export function quorumRefusal(
  minApprovals: number,
  recipientCount: number,
  excludedCount: number,
  requiredExcluded: boolean,
): string | null {
  if (requiredExcluded) return 'the requester cannot be a required recipient';
  if (recipientCount - excludedCount < minApprovals)
    return `without the requester only ${recipientCount - excludedCount} recipients can approve; min_approvals is ${minApprovals}`;
  return null;
}
