/**
 * Whether a gate can be answered outside its page. A gate asking for typed values (`fields`, some required) can
 * be answered only on the page, where they are entered: a chat click or an email reply then gets the page's link
 * instead of confirming. The gate is read loosely so this holds whatever else the stored gate carries.
 */
export function answerNeedsPage(gate: object): boolean {
  const fields = (gate as { fields?: unknown }).fields;
  if (!Array.isArray(fields)) return false;
  return fields.some(
    (f) => typeof f === 'object' && f !== null && (f as { required?: unknown }).required === true,
  );
}
