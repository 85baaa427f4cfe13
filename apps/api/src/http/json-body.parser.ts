import { BadRequestException, PayloadTooLargeException } from '@nestjs/common';
import { FastifyInstance } from 'fastify';
import * as sjson from 'secure-json-parse';

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
      if (c === 0x5c) i++; // backslash: skip the escaped character
      else if (c === 0x22) inString = false;
    } else if (c === 0x22) inString = true;
    else if (c === 0x7b || c === 0x5b) {
      if (++depth > max) return true;
    } else if (c === 0x7d || c === 0x5d) depth--;
  }
  return false;
}

/**
 * The only body parser: JSON, size- and depth-limited, prototype-poisoning
 * safe. Any other content type is refused with 415 by Fastify.
 */
export function registerJsonParser(fastify: FastifyInstance, bodyLimit: number, maxDepth: number): void {
  fastify.removeAllContentTypeParsers();
  fastify.addContentTypeParser(
    /^application\/(.+\+)?json$/,
    { parseAs: 'string', bodyLimit },
    (_req, text: string | Buffer, done) => {
      const body = String(text);
      if (body.trim() === '') return done(null, undefined);
      if (body.length > bodyLimit) return done(new PayloadTooLargeException('request body is too large'), undefined);
      if (jsonDepthExceeds(body, maxDepth)) {
        return done(new BadRequestException(`request body is nested deeper than ${maxDepth} levels`), undefined);
      }
      try {
        done(null, sjson.parse(body, { protoAction: 'error', constructorAction: 'error' }));
      } catch (err) {
        done(new BadRequestException(`malformed JSON body: ${(err as Error).message}`), undefined);
      }
    },
  );
}
