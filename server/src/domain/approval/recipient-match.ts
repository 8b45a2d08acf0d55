/**
 * Whether a recipient (as written in `gate.recipients`, or as stored: its reference or address) is the one a
 * `required_recipients` / `exclude_requester` entry names: the same address (case-insensitive), or a `contact:<id>`
 * naming the contact whatever channel suffix the recipient carries (`contact:<id>:email`).
 */
export function recipientMatches(recipient: string, named: string): boolean {
  const a = recipient.trim().toLowerCase();
  const b = named.trim().toLowerCase();
  return a === b || (b.startsWith('contact:') && a.startsWith(`${b}:`));
}
