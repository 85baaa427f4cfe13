import { intId } from './int-id';

describe('intId', () => {
  it('takes every value an int id column holds, ten digits included', () => {
    expect(intId('1')).toBe(1);
    expect(intId('999999999')).toBe(999_999_999);
    expect(intId('1720520830')).toBe(1_720_520_830);
    expect(intId('2147483647')).toBe(2_147_483_647);
  });

  it('refuses what no int column holds, and what is not a plain decimal', () => {
    for (const text of ['2147483648', '9999999999', '99999999999', '-1', '1.5', '1e3', '0x10', ' 5', '5 ', '', 'abc']) expect(intId(text)).toBeNull();
  });
});
