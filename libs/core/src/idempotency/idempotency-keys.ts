import { Injectable } from '@nestjs/common';
import { AsyncLocalStorage } from 'node:async_hooks';
import { DataSource, EntitySubscriberInterface, EventSubscriber, TransactionCommitEvent } from 'typeorm';

/**
 * A claim left unanswered this long belongs to a process that died
 * mid-create; a retry may take it over rather than wait out the whole TTL,
 * unless its create committed (then the retry is told its answer was
 * lost). Creates answer in well under a second (a gateway route's waits
 * for its bind after the commit, at most GATEWAY_BIND_TIMEOUT_MS), so
 * this never judges a live one.
 */
export const IDEMPOTENCY_STALE_CLAIM_MS = 5 * 60_000;

/** Expired rows one prune deletes at most, so a tick never holds a long lock. */
const PRUNE_BATCH = 10_000;

export type IdempotencyClaim =
  | { kind: 'claimed' }
  | { kind: 'in-flight' }
  | { kind: 'mismatch' }
  | { kind: 'done'; statusCode: number; response: unknown }
  /** The create committed, and its process died before keeping the answer. */
  | { kind: 'answer-lost' };

/** The key a request holds while its create runs: what IdempotentCommits marks. */
interface HeldClaim {
  scope: string;
  key: string;
}

const heldClaims = new AsyncLocalStorage<HeldClaim>();

/** Runs a create holding the claim of `scope` and `key`: its transaction's commit marks the claim (IdempotentCommits). */
export function withIdempotencyClaim<T>(claim: HeldClaim, create: () => Promise<T>): Promise<T> {
  return heldClaims.run(claim, create);
}

/**
 * Marks the claim of the request a transaction runs for as committed, in
 * that transaction, just before its COMMIT: the create and the mark are
 * one, whatever happens after. Every create writes its resource in a
 * transaction, so this needs no code in each lifecycle; outside an
 * idempotent request it does nothing.
 */
@EventSubscriber()
export class IdempotentCommits implements EntitySubscriberInterface {
  /** Not async: every commit of the process passes here, and most hold no claim. */
  beforeTransactionCommit(event: TransactionCommitEvent): Promise<unknown> | void {
    const claim = heldClaims.getStore();
    if (!claim) return;
    return event.queryRunner.query(`UPDATE "idempotency_keys" SET "committed_at" = now() WHERE "scope" = $1 AND "key" = $2 AND "status_code" IS NULL AND "committed_at" IS NULL`, [
      claim.scope,
      claim.key,
    ]);
  }
}

/**
 * The rows behind `Idempotency-Key`, in PostgreSQL so every api process
 * sees the same claim: the INSERT that claims a key is the one point where
 * two concurrent first requests are told apart.
 */
@Injectable()
export class IdempotencyKeys {
  constructor(private readonly dataSource: DataSource) {}

  /**
   * Claims `key` for this request, or says why not. An expired row, or a
   * claim whose process died before its create committed, is taken over
   * as if absent: expiry is checked here at read, whatever the prune has
   * done. A claim whose create committed is never taken over before it
   * expires, answered or not: that would create the resource twice.
   */
  async claim(scope: string, key: string, fingerprint: string, ttlMs: number): Promise<IdempotencyClaim> {
    const claimed: unknown[] = await this.dataSource.query(
      `INSERT INTO "idempotency_keys" ("scope", "key", "fingerprint", "expires_at")
       VALUES ($1, $2, $3, now() + make_interval(secs => $4::double precision / 1000))
       ON CONFLICT ("scope", "key") DO UPDATE
         SET "fingerprint" = EXCLUDED."fingerprint", "status_code" = NULL, "response" = NULL, "committed_at" = NULL, "created_at" = now(), "expires_at" = EXCLUDED."expires_at"
         WHERE "idempotency_keys"."expires_at" <= now()
            OR ("idempotency_keys"."status_code" IS NULL AND "idempotency_keys"."committed_at" IS NULL
                AND "idempotency_keys"."created_at" < now() - make_interval(secs => $5::double precision / 1000))
       RETURNING "key"`,
      [scope, key, fingerprint, ttlMs, IDEMPOTENCY_STALE_CLAIM_MS],
    );
    if (claimed.length) return { kind: 'claimed' };
    const rows: Array<{ fingerprint: string; status_code: number | null; response: unknown; answer_lost: boolean }> = await this.dataSource.query(
      `SELECT "fingerprint", "status_code", "response",
              "committed_at" IS NOT NULL AND "created_at" < now() - make_interval(secs => $3::double precision / 1000) AS "answer_lost"
       FROM "idempotency_keys" WHERE "scope" = $1 AND "key" = $2`,
      [scope, key, IDEMPOTENCY_STALE_CLAIM_MS],
    );
    const row = rows[0];
    // Released between the INSERT and this read: the first request failed, and this one may simply retry.
    if (!row) return { kind: 'in-flight' };
    if (row.fingerprint !== fingerprint) return { kind: 'mismatch' };
    if (row.status_code === null) return row.answer_lost ? { kind: 'answer-lost' } : { kind: 'in-flight' };
    return { kind: 'done', statusCode: row.status_code, response: row.response };
  }

  /** Keeps the answer of the request that holds the claim. */
  async complete(scope: string, key: string, statusCode: number, response: unknown): Promise<void> {
    await this.dataSource.query(`UPDATE "idempotency_keys" SET "status_code" = $3, "response" = $4 WHERE "scope" = $1 AND "key" = $2`, [
      scope,
      key,
      statusCode,
      JSON.stringify(response ?? null),
    ]);
  }

  /** Gives the key back after a failed create, so a retry runs it again. */
  async release(scope: string, key: string): Promise<void> {
    await this.dataSource.query(`DELETE FROM "idempotency_keys" WHERE "scope" = $1 AND "key" = $2 AND "status_code" IS NULL`, [scope, key]);
  }

  /** Deletes expired rows (a batch at most); the maintenance schedule calls it. */
  async prune(): Promise<number> {
    const [, deleted] = await this.dataSource.query(
      `DELETE FROM "idempotency_keys" WHERE ctid IN (SELECT ctid FROM "idempotency_keys" WHERE "expires_at" <= now() LIMIT ${PRUNE_BATCH})`,
    );
    return Number(deleted ?? 0);
  }
}
