/** The largest value of PostgreSQL's `int` (what a `serial` id column holds). */
const INT4_MAX = 2_147_483_647;

/**
 * `text` as the id of a row whose id column is an `int`, or null when no
 * such row can have it: client input is checked here, before it reaches
 * SQL, where a value out of the type's range would be an error (500), not
 * a row that is not there.
 */
export function intId(text: string): number | null {
  if (!/^\d{1,10}$/.test(text)) return null;
  const id = Number(text);
  return id <= INT4_MAX ? id : null;
}
