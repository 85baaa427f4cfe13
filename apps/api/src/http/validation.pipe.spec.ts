import { BadRequestException } from '@nestjs/common';
import { IsString } from 'class-validator';
import { PageQuery } from './cursor';
import { StrictValidationPipe } from './validation.pipe';

class SearchQuery {
  @IsString()
  q!: string;
}

describe('StrictValidationPipe on queries', () => {
  const pipe = new StrictValidationPipe();
  const asQuery = (metatype: new () => object) => ({ type: 'query' as const, metatype: metatype as never, data: undefined });

  it('answers an empty query with the class instance, the first time and after', async () => {
    for (let i = 0; i < 3; i++) {
      const value = await pipe.transform({}, asQuery(PageQuery));
      expect(value).toBeInstanceOf(PageQuery);
      expect({ ...(value as object) }).toEqual({});
    }
  });

  it('still refuses an empty query where a field is required, every time', async () => {
    for (let i = 0; i < 3; i++) {
      await expect(pipe.transform({}, asQuery(SearchQuery))).rejects.toThrow(new BadRequestException('q: must be a string'));
    }
  });

  it('validates a query that is not empty', async () => {
    await pipe.transform({}, asQuery(PageQuery));
    await expect(pipe.transform({ limit: '500' }, asQuery(PageQuery))).rejects.toThrow(BadRequestException);
    await expect(pipe.transform({ extra: '1' }, asQuery(PageQuery))).rejects.toThrow(/extra/);
    expect(await pipe.transform({ limit: '5' }, asQuery(PageQuery))).toEqual(Object.assign(new PageQuery(), { limit: 5 }));
  });
});
