import { BadRequestException } from '@nestjs/common';
import { ApiPropertyOptional } from '@nestjs/swagger';
import { Transform } from 'class-transformer';
import { IsInt, IsOptional, IsString, Max, MaxLength, Min } from 'class-validator';

/** `?limit=&cursor=` of every `{items, next_cursor}` listing. */
export class PageQuery {
  @ApiPropertyOptional({ minimum: 1, maximum: 100, default: 20 })
  @IsOptional()
  @Transform(({ value }) => (typeof value === 'string' && /^\d{1,6}$/.test(value) ? Number(value) : value))
  @Max(100)
  @Min(1)
  @IsInt({ message: 'must be an integer between 1 and 100' })
  limit?: number;

  @ApiPropertyOptional({ description: 'next_cursor of the previous page' })
  @IsOptional()
  @MaxLength(512)
  @IsString()
  cursor?: string;
}

export interface Page<T> {
  items: T[];
  next_cursor: string | null;
}

/** Opaque keyset cursor: the sort key of the last item, base64url JSON. */
export function encodeCursor(key: string): string {
  return Buffer.from(JSON.stringify({ k: key })).toString('base64url');
}

export function decodeCursor(cursor: string | undefined): string | null {
  if (cursor === undefined) return null;
  try {
    const parsed = JSON.parse(Buffer.from(cursor, 'base64url').toString('utf8'));
    // A key with U+0000 is none this API issued (PostgreSQL text cannot hold it).
    if (typeof parsed?.k === 'string' && !parsed.k.includes('\u0000')) return parsed.k;
  } catch {
    // fall through
  }
  throw new BadRequestException('cursor: not a cursor this API issued');
}

/** Builds a page from `limit + 1` rows fetched after the cursor. */
export function toPage<R, T>(rows: R[], limit: number, keyOf: (row: R) => string, present: (row: R) => T): Page<T> {
  const more = rows.length > limit;
  const items = more ? rows.slice(0, limit) : rows;
  return { items: items.map(present), next_cursor: more ? encodeCursor(keyOf(items[items.length - 1])) : null };
}
