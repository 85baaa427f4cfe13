/**
 * Runs a request's independent checks and lookups together (one round of
 * waiting) and throws the first failure in list order, not in time: a
 * request with several bad fields always gets the same error.
 */
export async function allInOrder<T extends readonly unknown[]>(promises: readonly [...{ [K in keyof T]: Promise<T[K]> }]): Promise<T> {
  const settled = await Promise.allSettled(promises as readonly Promise<unknown>[]);
  for (const result of settled) if (result.status === 'rejected') throw result.reason;
  return settled.map((r) => (r as PromiseFulfilledResult<unknown>).value) as unknown as T;
}
