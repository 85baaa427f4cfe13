import { etagOf, noneMatchNames } from './etag';

describe('etagOf', () => {
  it('is the same for the same body and link, and differs when either does', () => {
    expect(etagOf('[1]', undefined)).toBe(etagOf('[1]', undefined));
    expect(etagOf('[1]', undefined)).not.toBe(etagOf('[2]', undefined));
    expect(etagOf('[1]', '<a>; rel="next"')).not.toBe(etagOf('[1]', undefined));
    expect(etagOf('[1]', undefined)).toMatch(/^"[\w-]{27}"$/);
  });
});

describe('noneMatchNames', () => {
  const tag = etagOf('{}', undefined);
  it.each([
    [tag, true],
    [`W/${tag}`, true],
    [`"x", ${tag}`, true],
    ['*', true],
    ['"x"', false],
    ['', false],
  ])('%s names it: %s', (header, expected) => expect(noneMatchNames(header, tag)).toBe(expected));

  it('takes a header given twice', () => expect(noneMatchNames(['"x"', tag], tag)).toBe(true));
  it('is false without the header', () => expect(noneMatchNames(undefined, tag)).toBe(false));
});
