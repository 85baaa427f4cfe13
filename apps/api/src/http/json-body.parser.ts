import { BadRequestException, PayloadTooLargeException } from '@nestjs/common';
import { FastifyInstance } from 'fastify';
import { TextDecoder } from 'node:util';

/**
 * Depth of a JSON text, counted before parsing so a deeply nested body is
 * refused without ever reaching JSON.parse's recursion.
 */
export function jsonDepthExceeds(text: string, max: number): boolean {
  let depth = 0;
  let inString = false;
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    if (inString) {
      if (c === 0x5c)
        i++; // backslash: skip the escaped character
      else if (c === 0x22) inString = false;
    } else if (c === 0x22) inString = true;
    else if (c === 0x7b || c === 0x5b) {
      if (++depth > max) return true;
    } else if (c === 0x7d || c === 0x5d) depth--;
  }
  return false;
}

/**
 * Keys no request field is named after, refused at any depth as unknown
 * fields are. `__proto__` and `constructor` poison prototypes when code
 * merges a body into an object; class-transformer drops `prototype`
 * silently, so the whitelist never saw it.
 */
const FORBIDDEN_KEYS = new Set(['__proto__', 'constructor', 'prototype']);

/** The first forbidden key in a parsed body (JSON.parse makes `__proto__` an own key) and its path, or null. */
export function findForbiddenKey(value: unknown, path = ''): { path: string; key: string } | null {
  if (typeof value !== 'object' || value === null) return null;
  for (const key of Object.keys(value)) {
    const at = Array.isArray(value) ? `${path}[${key}]` : path ? `${path}.${key}` : key;
    if (!Array.isArray(value) && FORBIDDEN_KEYS.has(key)) return { path: at, key };
    const found = findForbiddenKey((value as Record<string, unknown>)[key], at);
    if (found !== null) return found;
  }
  return null;
}

/** Refuses bytes that are not UTF-8 rather than replacing them (which also broke the Content-Length check). */
const utf8 = new TextDecoder('utf-8', { fatal: true, ignoreBOM: false });

/**
 * The only body parser: JSON, size- and depth-limited, strict UTF-8,
 * prototype-poisoning safe. Any other content type is refused with 415 by
 * Fastify.
 */
export function registerJsonParser(fastify: FastifyInstance, bodyLimit: number, maxDepth: number): void {
  fastify.removeAllContentTypeParsers();
  fastify.addContentTypeParser(/^application\/(.+\+)?json$/, { parseAs: 'buffer', bodyLimit }, (_req, raw: string | Buffer, done) => {
    if (raw.length > bodyLimit) return done(new PayloadTooLargeException('request body is too large'), undefined);
    let body: string;
    try {
      body = typeof raw === 'string' ? raw : utf8.decode(raw);
    } catch {
      return done(new BadRequestException('request body is not valid UTF-8'), undefined);
    }
    if (body.trim() === '') return done(null, undefined);
    if (jsonDepthExceeds(body, maxDepth)) {
      return done(new BadRequestException(`request body is nested deeper than ${maxDepth} levels`), undefined);
    }
    let parsed: unknown;
    try {
      parsed = JSON.parse(body);
    } catch (err) {
      return done(new BadRequestException(`malformed JSON body: ${(err as Error).message}`), undefined);
    }
    const forbidden = findForbiddenKey(parsed);
    if (forbidden !== null) {
      return done(new BadRequestException(`${forbidden.path}: property ${forbidden.key} should not exist`), undefined);
    }
    done(null, parsed);
  });
}
