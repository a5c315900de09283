import { Type } from 'class-transformer';
import { IsInt, IsString, Max, MaxLength, Min, ValidateNested } from 'class-validator';
import { AppError } from '../../src/common/errors';
import { createValidationPipe } from '../../src/common/http';

class SampleDto {
  @IsString()
  label!: string;

  @IsInt()
  @Min(0)
  @Max(10)
  count!: number;
}

class TagDto {
  @IsString()
  @MaxLength(5)
  name!: string;
}

class TaggedDto extends SampleDto {
  @ValidateNested()
  @Type(() => TagDto)
  tags!: TagDto[];
}

describe('validation pipe', () => {
  const pipe = createValidationPipe();
  const meta = { type: 'body' as const, metatype: SampleDto };

  it('turns failures into validation_failed with field details', async () => {
    const error = await pipe.transform({ label: 5, count: -1 }, meta).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(AppError);
    const appError = error as AppError;
    expect(appError.code).toBe('validation_failed');
    expect(appError.status).toBe(422);
    expect(appError.details?.map((d) => d.field).sort()).toEqual(['count', 'label']);
  });

  it('refuses unknown fields', async () => {
    const error = (await pipe
      .transform({ label: 'a', count: 1, extra: true }, meta)
      .catch((e: unknown) => e)) as AppError;
    expect(error.details).toEqual([
      { field: 'extra', problem: 'is not a known field; allowed fields are label, count' },
    ]);
  });

  it('refuses an unknown field whose value has a member named constructor, without a 500', async () => {
    const error = (await pipe
      .transform({ label: 'a', count: 1, extra: { constructor: {} } }, meta)
      .catch((e: unknown) => e)) as AppError;
    expect(error).toBeInstanceOf(AppError);
    expect(error.details).toEqual([
      { field: 'extra', problem: 'is not a known field; allowed fields are label, count' },
    ]);
  });

  it('refuses a body that is JSON but not an object', async () => {
    for (const body of [[1, 2], 'text', 5, null]) {
      const error = (await pipe.transform(body, meta).catch((e: unknown) => e)) as AppError;
      expect(error.details).toEqual([{ field: 'body', problem: 'the request body must be a JSON object' }]);
    }
  });

  it('names array items by index and reports one problem per field, the first in reading order', async () => {
    const error = (await pipe
      .transform(
        { label: 'a', count: 1, tags: [{ name: 'ok' }, { name: 7 }] },
        { type: 'body', metatype: TaggedDto },
      )
      .catch((e: unknown) => e)) as AppError;
    expect(error.details).toEqual([{ field: 'tags[1].name', problem: 'name must be a string' }]);
  });

  it('says that a missing field is required, and reports every bad field', async () => {
    const error = (await pipe.transform({ count: 11 }, meta).catch((e: unknown) => e)) as AppError;
    expect(error.details).toEqual([
      { field: 'label', problem: 'is required' },
      { field: 'count', problem: 'count must not be greater than 10' },
    ]);
  });

  it('passes valid input through as the DTO class', async () => {
    const value = (await pipe.transform({ label: 'a', count: 3 }, meta)) as SampleDto;
    expect(value).toBeInstanceOf(SampleDto);
    expect(value.count).toBe(3);
  });
});
