import { IsInt, IsString, Max, Min } from 'class-validator';
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
    const error = (await pipe.transform({ label: 'a', count: 1, extra: true }, meta).catch((e: unknown) => e)) as AppError;
    expect(error.details).toEqual([{ field: 'extra', problem: 'property extra should not exist' }]);
  });

  it('passes valid input through as the DTO class', async () => {
    const value = (await pipe.transform({ label: 'a', count: 3 }, meta)) as SampleDto;
    expect(value).toBeInstanceOf(SampleDto);
    expect(value.count).toBe(3);
  });
});
