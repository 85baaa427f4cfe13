import { BadRequestException } from '@nestjs/common';
import { ApiPropertyOptional } from '@nestjs/swagger';
import { PageKey, PageRequest } from '@stratus/core';
import { Transform } from 'class-transformer';
import { IsIn, IsInt, IsOptional, IsString, Length, Max, MaxLength, Min } from 'class-validator';

/**
 * What a list answers without `limit`. Small enough that the busiest poll
 * stays a few tens of kilobytes, large enough that a project with fewer
 * resources than this (nearly every one) still gets all of them in one
 * answer, as before pagination. Beyond it a `Link: <...>; rel="next"` says
 * there is more (README, OpenAPI).
 */
export const DEFAULT_PAGE_SIZE = 100;
export const MAX_PAGE_SIZE = 1000;
/** The longest a `?wait=` long poll is held. */
export const MAX_WAIT_SECONDS = 60;

/** `'25'` to 25 for a query string's digits; anything else is left for the validators to refuse. */
const toInt = ({ value }: { value: unknown }) => (typeof value === 'string' && /^\d{1,6}$/.test(value) ? Number(value) : value);

/** `?wait=`: the get and list long poll (long-poll.interceptor.ts). */
export class WaitQuery {
  @ApiPropertyOptional({
    minimum: 0,
    maximum: MAX_WAIT_SECONDS,
    description:
      'Long poll: with If-None-Match set to the ETag of the last answer, the answer waits up to this many seconds for a change and comes as soon as there is one (200 with the new body); 304 when nothing changed. Without If-None-Match it answers at once.',
  })
  @IsOptional()
  @Transform(toInt)
  @Max(MAX_WAIT_SECONDS)
  @Min(0)
  @IsInt({ message: `must be an integer between 0 and ${MAX_WAIT_SECONDS}` })
  wait?: number;
}

/** `?limit=&cursor=` and the long poll: the query of a list with nothing to filter by. */
export class ListQuery extends WaitQuery {
  @ApiPropertyOptional({
    minimum: 1,
    maximum: MAX_PAGE_SIZE,
    default: DEFAULT_PAGE_SIZE,
    description: `Items per page, newest first. Without it a list answers at most ${DEFAULT_PAGE_SIZE}; the Link header (rel="next") says when there are more.`,
  })
  @IsOptional()
  @Transform(toInt)
  @Max(MAX_PAGE_SIZE)
  @Min(1)
  @IsInt({ message: `must be an integer between 1 and ${MAX_PAGE_SIZE}` })
  limit?: number;

  @ApiPropertyOptional({ description: 'Opaque: taken from the rel="next" link of the previous page, never built by hand' })
  @IsOptional()
  @MaxLength(512)
  @IsString()
  cursor?: string;
}

/** A list filtered by name as well. */
export class NamedListQuery extends ListQuery {
  @ApiPropertyOptional({ description: 'Only the items with exactly this name' })
  @IsOptional()
  @Length(1, 255)
  @IsString()
  name?: string;
}

/** The query of a list of resources with a status: a NamedListQuery plus `status`, one of `statuses`. */
export function StatusListQuery<S extends string>(statuses: readonly S[]) {
  class StatusListQueryOf extends NamedListQuery {
    @ApiPropertyOptional({ enum: statuses, description: 'Only the items in this status' })
    @IsOptional()
    @IsIn(statuses, { message: `must be one of ${statuses.join(', ')}` })
    status?: S;
  }
  return StatusListQueryOf;
}

/** The page a list query asks for, its cursor decoded. */
export function pageRequest(query: ListQuery & { name?: string; status?: string }): PageRequest {
  return { limit: query.limit ?? DEFAULT_PAGE_SIZE, after: decodePageCursor(query.cursor), name: query.name, status: query.status };
}

/** Opaque to clients: the last item's sort key, base64url JSON. */
export function encodePageCursor(key: PageKey): string {
  return Buffer.from(JSON.stringify({ t: key.createdAt, i: key.id })).toString('base64url');
}

export function decodePageCursor(cursor: string | undefined): PageKey | null {
  if (cursor === undefined) return null;
  try {
    const parsed = JSON.parse(Buffer.from(cursor, 'base64url').toString('utf8'));
    // keysetPage checks the shape of each part before it reaches SQL.
    if (typeof parsed?.t === 'string' && typeof parsed?.i === 'string') return { createdAt: parsed.t, id: parsed.i };
  } catch {
    // fall through
  }
  throw new BadRequestException('cursor: not a cursor this API issued');
}
