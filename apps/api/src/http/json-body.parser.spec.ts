import { jsonDepthExceeds } from './json-body.parser';

describe('jsonDepthExceeds', () => {
  it.each([
    ['{}', 1, false],
    ['{"a":{"b":1}}', 1, true],
    ['{"a":{"b":1}}', 2, false],
    ['[[[[1]]]]', 3, true],
    ['{"a":"[[[[[[[["}', 1, false],
    ['{"a":"\\"[[[["}', 1, false],
    ['['.repeat(10_000), 32, true],
  ])('%s with max %d exceeds: %s', (text, max, expected) => {
    expect(jsonDepthExceeds(text, max)).toBe(expected);
  });
});
