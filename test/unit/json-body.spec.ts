import { AppError } from '../../src/common/errors';
import { parseJsonBody, syntaxErrorOffset } from '../../src/common/http/json-body';

function refusal(text: string): { message: string; details: unknown } {
  try {
    parseJsonBody(text);
  } catch (error) {
    expect(error).toBeInstanceOf(AppError);
    const { code, message, details } = error as AppError;
    expect(code).toBe('invalid_json');
    return { message, details };
  }
  throw new Error(`accepted ${text}`);
}

describe('parseJsonBody', () => {
  it.each([
    ['{"a":}', 5],
    ['{"a":1', 6],
    ['{"a" 1}', 5],
    ['[1,2,]', 5],
    ['{"a":1}x', 7],
    ['{"a":"\\x"}', 7],
    ['{"a":"\\u12g4"}', 10],
    ['{"a":tru}', 5],
    ['{\n  "a": 1,\n  "b": NaN\n}', 19],
    ['"\u0001"', 1],
    ['{"a":-}', 5],
  ])('finds where %j stops being JSON: %i', (text, offset) => {
    expect(() => JSON.parse(text)).toThrow();
    expect(syntaxErrorOffset(text)).toBe(offset);
  });

  it('finds no error in valid JSON (the offset is its length)', () => {
    const text = '{"a":[1,-2.5e3,"\\u00e9\\n",true,false,null,{}],"b":{"c":[]}}';
    expect(syntaxErrorOffset(text)).toBe(text.length);
  });

  it('names the position, line and column of a syntax error', () => {
    expect(refusal('{\n  "a": 1,\n  "b": NaN\n}').message).toBe(
      'The request body is not valid JSON: unexpected "N" at position 19 (line 3, column 8).',
    );
    expect(refusal('{"a":[1,2').message).toBe(
      'The request body is not valid JSON: it ends too early, at position 9 (line 1, column 10).',
    );
  });

  it('names a refused __proto__ or constructor.prototype key, wherever it is and however it is spelled', () => {
    expect(refusal('{"a":{"__proto__":{"admin":true}}}')).toEqual({
      message:
        'The request body has a key that is refused: a.__proto__ is a "__proto__" key, refused: code that copies ' +
        'the body could change the prototype of every object (prototype pollution).',
      details: [
        {
          field: 'a.__proto__',
          problem:
            'is a "__proto__" key, refused: code that copies the body could change the prototype of every object ' +
            '(prototype pollution)',
        },
      ],
    });
    expect(refusal('[{"\\u005f_proto__":1}]').details).toEqual([
      { field: '[0].__proto__', problem: expect.stringContaining('"__proto__" key') },
    ]);
    expect(refusal('{"x":[{"constructor":{"prototype":{}}}]}').details).toEqual([
      {
        field: 'x[0].constructor',
        problem: expect.stringContaining('"constructor" key holding "prototype"'),
      },
    ]);
  });

  it('keeps a constructor key that holds no prototype, and the word __proto__ inside a value', () => {
    expect(parseJsonBody('{"constructor":"c","v":"__proto__"}')).toEqual({
      constructor: 'c',
      v: '__proto__',
    });
  });
});
