import { describe, expect, it } from 'vitest';
import { ExitCode, InputError, NetworkError, redactUrls } from '../src/errors.js';

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
});
