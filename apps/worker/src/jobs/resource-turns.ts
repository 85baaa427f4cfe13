import { Injectable } from '@nestjs/common';
import { AppConfig } from '@stratus/core';
import { PostgresTurns, SharedTurns } from '@stratus/providers';

/**
 * How long a step waits for a resource's turn before it gives up (a
 * retryable error: its job runs again). A turn is held for one step of a
 * job, which returns once the provider has been told (a start is looked at
 * again by a later step); a local PostgreSQL's first layout is the longest.
 */
const TURN_WAIT_MS = 5 * 60_000;

/**
 * The steps of one resource's jobs (create, delete, a restart, a password
 * reset), taken one at a time across every worker. Without turns a delete
 * that meets a create's step can give the address back before the step
 * starts the server on it: the server then outlives its row and squats an
 * address the network hands to the next resource, maybe another project's.
 */
@Injectable()
export class ResourceTurns {
  private readonly turns: SharedTurns;

  constructor(config: AppConfig) {
    this.turns = new PostgresTurns(config.DATABASE_URL, TURN_WAIT_MS);
  }

  /** `fn` in the database's turn: it reads the row there, so a delete before it is seen, and one after it waits. */
  database<T>(id: number, fn: () => Promise<T>): Promise<T> {
    return this.turns.take(`database ${id}`, fn);
  }
}
