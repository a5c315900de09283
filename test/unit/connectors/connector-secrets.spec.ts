import {
  MASK,
  maskConfig,
  maskEmbedded,
  restoreMasked,
} from '../../../src/modules/connectors/connector-secrets';

describe('connector secrets masking', () => {
  it('masks secret fields and keeps the rest', () => {
    expect(
      maskConfig({
        host: 'h',
        user: 'u',
        password: 'p',
        api_key: 'k',
        token: 't',
        aws_secret_access_key: 's',
        port: 1,
      }),
    ).toEqual({
      host: 'h',
      user: 'u',
      password: MASK,
      api_key: MASK,
      token: MASK,
      aws_secret_access_key: MASK,
      port: 1,
    });
  });

  it('masks the password inside a DSN, an Azure connection string and a SAS URL', () => {
    expect(maskEmbedded('postgresql+psycopg2://user:s3cret@db:5432/x')).toBe(
      `postgresql+psycopg2://user:${MASK}@db:5432/x`,
    );
    expect(
      maskEmbedded(
        'DefaultEndpointsProtocol=https;AccountName=a;AccountKey=abc==;EndpointSuffix=core.windows.net',
      ),
    ).toBe(`DefaultEndpointsProtocol=https;AccountName=a;AccountKey=${MASK};EndpointSuffix=core.windows.net`);
    expect(maskEmbedded('https://a.blob.core.windows.net/c/b.csv?sv=2020&sig=abc%2B')).toBe(
      `https://a.blob.core.windows.net/c/b.csv?sv=2020&sig=${MASK}`,
    );
    expect(maskEmbedded('mysql://user@db/x')).toBe('mysql://user@db/x');
  });

  it('masks secret-looking headers of a REST config', () => {
    expect(maskConfig({ headers: { Authorization: 'Bearer x', 'X-API-Key': 'k', Accept: 'json' } })).toEqual({
      headers: { Authorization: MASK, 'X-API-Key': MASK, Accept: 'json' },
    });
  });

  it('masks inline service-account JSON but shows a credentials path', () => {
    expect(maskConfig({ credentials: '{"private_key":"x"}' }).credentials).toBe(MASK);
    expect(maskConfig({ credentials: 'keys/sa.json' }).credentials).toBe('keys/sa.json');
  });

  it('masks secret-named fields of open configs', () => {
    expect(
      maskConfig({ uri: 'bolt://u:pw@h', neo_password: 'x', nested: { secret_key: 'y' } }, true),
    ).toEqual({
      uri: `bolt://u:${MASK}@h`,
      neo_password: MASK,
      nested: { secret_key: MASK },
    });
  });

  it('restores stored secrets when the masked form is sent back', () => {
    const stored = {
      password: 'p',
      connection_string: 'postgres://u:pw@h/db',
      headers: { Authorization: 'Bearer t', Accept: 'json' },
    };
    const echoed = maskConfig(stored);
    expect(restoreMasked({ ...echoed, host: 'new' }, stored)).toEqual({ ...stored, host: 'new' });
    expect(restoreMasked({ password: 'changed' }, stored)).toEqual({ password: 'changed' });
  });
});
