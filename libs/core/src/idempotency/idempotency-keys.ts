import { Injectable } from '@nestjs/common';
import { AsyncLocalStorage } from 'node:async_hooks';
import { randomUUID } from 'node:crypto';
import { DataSource, EntitySubscriberInterface, EventSubscriber, TransactionCommitEvent } from 'typeorm';
import { Conflict } from '../errors/domain-errors';

/**
 * A claim left this long without its create committing is taken over by a
 * retry: its process most likely died mid-create. If it did not (a create
 * held up that long before its commit), taking it over is still safe: its
 * create can no longer commit under the key (IdempotentCommits), so the
 * resource is made once, by the retry.
 */
export const IDEMPOTENCY_TAKEOVER_MS = 30_000;

/**
 * A claim whose create committed with no answer kept this long lost its
 * answer: its process died between the two. Until then the answer may be
 * on its way (a gateway route's create waits for its bind after the
 * commit, at most GATEWAY_BIND_TIMEOUT_MS).
 */
export const IDEMPOTENCY_ANSWER_LOST_MS = 5 * 60_000;

/** Expired rows one prune deletes at most, so a tick never holds a long lock. */
const PRUNE_BATCH = 10_000;

export type IdempotencyClaim =
  /** `holder` is the request's own id on the claim: what its commit, answer or release name. */
  | { kind: 'claimed'; holder: string }
  | { kind: 'in-flight' }
  | { kind: 'mismatch' }
  | { kind: 'done'; statusCode: number; response: unknown }
  /** The create committed, and its process died before keeping the answer. */
  | { kind: 'answer-lost' };

/** The key a request holds while its create runs: what IdempotentCommits marks. */
export interface HeldClaim {
  scope: string;
  key: string;
  holder: string;
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
 * idempotent request it does nothing, and a later commit of the request
 * keeps the first one's time. A claim a retry took over is no longer this
 * request's: its transaction fails instead of committing, and the
 * resource is the retry's to make.
 */
@EventSubscriber()
export class IdempotentCommits implements EntitySubscriberInterface {
  /** Not async: every commit of the process passes here, and most hold no claim. */
  beforeTransactionCommit(event: TransactionCommitEvent): Promise<unknown> | void {
    const claim = heldClaims.getStore();
    if (!claim) return;
    // The SELECT reads the row as it was before the UPDATE, which leaves the holder as it is.
    return event.queryRunner
      .query(
        `WITH "marked" AS (
           UPDATE "idempotency_keys" SET "committed_at" = COALESCE("committed_at", now())
           WHERE "scope" = $1 AND "key" = $2 AND "holder" = $3 AND "status_code" IS NULL RETURNING 1)
         SELECT EXISTS (SELECT 1 FROM "idempotency_keys" WHERE "scope" = $1 AND "key" = $2 AND "holder" IS DISTINCT FROM $3) AS "taken"`,
        [claim.scope, claim.key, claim.holder],
      )
      .then(([{ taken }]: Array<{ taken: boolean }>) => {
        if (taken) throw new Conflict('a retry with this Idempotency-Key took its claim over while this request ran; the retry makes the resource');
      });
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
   * claim left IDEMPOTENCY_TAKEOVER_MS without its create committing, is
   * taken over as if absent: expiry is checked here at read, whatever the
   * prune has done. A claim whose create committed is never taken over
   * before it expires, answered or not: that would create the resource
   * twice.
   */
  async claim(scope: string, key: string, fingerprint: string, ttlMs: number): Promise<IdempotencyClaim> {
    const holder = randomUUID();
    const claimed: unknown[] = await this.dataSource.query(
      `INSERT INTO "idempotency_keys" ("scope", "key", "fingerprint", "holder", "expires_at")
       VALUES ($1, $2, $3, $4, now() + make_interval(secs => $5::double precision / 1000))
       ON CONFLICT ("scope", "key") DO UPDATE
         SET "fingerprint" = EXCLUDED."fingerprint", "holder" = EXCLUDED."holder", "status_code" = NULL, "response" = NULL, "committed_at" = NULL,
             "created_at" = now(), "expires_at" = EXCLUDED."expires_at"
         WHERE "idempotency_keys"."expires_at" <= now()
            OR ("idempotency_keys"."status_code" IS NULL AND "idempotency_keys"."committed_at" IS NULL
                AND "idempotency_keys"."created_at" < now() - make_interval(secs => $6::double precision / 1000))
       RETURNING "key"`,
      [scope, key, fingerprint, holder, ttlMs, IDEMPOTENCY_TAKEOVER_MS],
    );
    if (claimed.length) return { kind: 'claimed', holder };
    const rows: Array<{ fingerprint: string; status_code: number | null; response: unknown; answer_lost: boolean }> = await this.dataSource.query(
      `SELECT "fingerprint", "status_code", "response",
              "committed_at" IS NOT NULL AND "created_at" < now() - make_interval(secs => $3::double precision / 1000) AS "answer_lost"
       FROM "idempotency_keys" WHERE "scope" = $1 AND "key" = $2`,
      [scope, key, IDEMPOTENCY_ANSWER_LOST_MS],
    );
    const row = rows[0];
    // Released between the INSERT and this read: the first request failed, and this one may simply retry.
    if (!row) return { kind: 'in-flight' };
    if (row.fingerprint !== fingerprint) return { kind: 'mismatch' };
    if (row.status_code === null) return row.answer_lost ? { kind: 'answer-lost' } : { kind: 'in-flight' };
    return { kind: 'done', statusCode: row.status_code, response: row.response };
  }

  /** Keeps the answer of the request that holds the claim. */
  async complete({ scope, key, holder }: HeldClaim, statusCode: number, response: unknown): Promise<void> {
    await this.dataSource.query(`UPDATE "idempotency_keys" SET "status_code" = $4, "response" = $5 WHERE "scope" = $1 AND "key" = $2 AND "holder" = $3`, [
      scope,
      key,
      holder,
      statusCode,
      JSON.stringify(response ?? null),
    ]);
  }

  /** Gives the key back after a failed create, so a retry runs it again; a claim a retry took over is the retry's. */
  async release({ scope, key, holder }: HeldClaim): Promise<void> {
    await this.dataSource.query(`DELETE FROM "idempotency_keys" WHERE "scope" = $1 AND "key" = $2 AND "holder" = $3 AND "status_code" IS NULL`, [scope, key, holder]);
  }

  /** Deletes expired rows (a batch at most); the maintenance schedule calls it. */
  async prune(): Promise<number> {
    const [, deleted] = await this.dataSource.query(
      `DELETE FROM "idempotency_keys" WHERE ctid IN (SELECT ctid FROM "idempotency_keys" WHERE "expires_at" <= now() LIMIT ${PRUNE_BATCH})`,
    );
    return Number(deleted ?? 0);
  }
}
