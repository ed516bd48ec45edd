import { describe, expect, it } from 'vitest';
import { ExitCode, InputError, MAX_CAUSE_DEPTH, NetworkError, VcError, asConnectionFailure, didYouMean, isVcError, redactUrls, walkErrorCauses } from '../src/errors.js';

describe('errors', () => {
  it('carry exit codes and HTTP statuses by kind', () => {
    expect(new InputError('x').exitCode).toBe(ExitCode.usage);
    expect(new InputError('x').httpStatus).toBe(400);
    expect(new NetworkError('x').exitCode).toBe(ExitCode.network);
    expect(new NetworkError('x').httpStatus).toBe(502);
  });

  it('redactUrls keeps only the origin of each URL, so API keys in paths never leak', () => {
    expect(redactUrls('cannot reach https://polygon-amoy.infura.io/v3/0123456789abcdef after 3 attempts')).toBe(
      'cannot reach https://polygon-amoy.infura.io/… after 3 attempts',
    );
    expect(redactUrls('ws wss://user:secret@rpc.example:8546/?key=abc.')).toBe('ws wss://rpc.example:8546/….');
    expect(redactUrls('local http://127.0.0.1:3000 (refused)')).toBe('local http://127.0.0.1:3000 (refused)');
    expect(redactUrls('no url here')).toBe('no url here');
  });

  // attack-s35: `vc chain env` leaves RPC_URL out when its redacted form hides something ('/…');
  // a password without a user name, or a key in the fragment, is dropped silently instead, so
  // `vc chain env` hands out RPC_URL=http://host:port as if it were the configured URL.
  it('redactUrls marks a URL whose password (without a user name) or fragment it dropped', () => {
    expect(redactUrls('http://:s3cret@127.0.0.1:8545')).toBe('http://127.0.0.1:8545/…');
    expect(redactUrls('https://rpc.example/#key=s3cret')).toBe('https://rpc.example/…');
  });

  it('walkErrorCauses follows cause, error, errors[0], details.cause and arrays; VcError.walk is the same walk', () => {
    const ours = new InputError('ours');
    const chain = new Error('outer', { cause: { error: [new AggregateError([{ details: { cause: ours } }], 'agg')] } });
    expect(walkErrorCauses(chain, isVcError)).toBe(ours);
    expect(walkErrorCauses(chain)).toBe(ours);
    expect(walkErrorCauses(new Error('plain'), isVcError)).toBeUndefined();
    const wrapper = new VcError('wrapper', { cause: new Error('middle', { cause: ours }) });
    expect(wrapper.walk()).toBe(ours);
    expect(wrapper.walk((link) => link instanceof Error && link.message === 'middle')).toBeInstanceOf(Error);
  });

  it('walkErrorCauses stops after MAX_CAUSE_DEPTH links, so a circular chain ends', () => {
    const loop: { cause?: unknown; n: number } = { n: 0 };
    loop.cause = loop;
    let visited = 0;
    expect(walkErrorCauses(loop, () => (visited++, false))).toBeUndefined();
    expect(visited).toBe(MAX_CAUSE_DEPTH);
    let deep: unknown = new InputError('deep');
    for (let i = 0; i < MAX_CAUSE_DEPTH; i++) deep = new Error(`level ${i}`, { cause: deep });
    expect(walkErrorCauses(deep, isVcError)).toBeUndefined();
  });

  it('asConnectionFailure finds a lost connection down the chain of causes', () => {
    const refused = Object.assign(new Error('connect ECONNREFUSED 127.0.0.1:8545'), { code: 'ECONNREFUSED' });
    expect(asConnectionFailure(new Error('fetch failed', { cause: refused }))).toBeInstanceOf(NetworkError);
    expect(asConnectionFailure({ error: refused })).toBeInstanceOf(NetworkError);
    expect(asConnectionFailure(new Error('something else'))).toBeUndefined();
  });
});

describe('didYouMean', () => {
  it('offers the closest name for a typo, a transposition or another case; nothing for a word like no name', () => {
    const fields = ['name', 'nationality', 'birthDate', 'passportNumber'];
    expect(didYouMean('birthdate', fields)).toBe(' (did you mean birthDate?)');
    expect(didYouMean('nationalty', fields)).toBe(' (did you mean nationality?)');
    expect(didYouMean('naem', fields)).toBe(' (did you mean name?)');
    expect(didYouMean('shoeSize', fields)).toBe('');
    expect(didYouMean('name', fields)).toBe('');
    expect(didYouMean('x', [])).toBe('');
  });
});

describe('redactUrls with public documents', () => {
  it('shows the URLs of public documents whole and cuts the others to their origin', () => {
    const context = 'https://raw.githubusercontent.com/iden3/claim-schema-vocab/main/schemas/json-ld/kyc-v3.json-ld';
    const text = `unknown JSON-LD context ${context}: add it with \`vc documents add ${context} FILE\`; rpc https://rpc.example/v3/secret-key.`;
    expect(redactUrls(text, [context])).toBe(`unknown JSON-LD context ${context}: add it with \`vc documents add ${context} FILE\`; rpc https://rpc.example/….`);
    expect(redactUrls(text)).not.toContain('kyc-v3');
  });
});
