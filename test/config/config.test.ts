import { describe, expect, it } from 'vitest';
import { DEV_CHAIN_IDS, KNOWN_CHAIN_DID_NETWORKS, parseConfig } from '../../src/config/parse.js';
import { ConfigError } from '../../src/errors.js';

const PHRASE = 'abandon abandon abandon abandon abandon abandon abandon abandon abandon abandon abandon about';

describe('parseConfig', () => {
  it('gives working defaults for the embedded local network with no variables at all', () => {
    const config = parseConfig({}, '/tmp/home');
    expect(config.chain.chainId).toBe(152);
    expect(config.chain.rpcUrl).toBeUndefined();
    expect(config.chain.didBlockchain).toBe('polygon');
    expect(config.chain.didNetwork).toBe('local');
    expect(config.server.bodyLimit).toBe(1024 * 1024);
    expect(config.verifier.trustedIssuers).toEqual(['*']);
    expect(config.home).toBe('/tmp/home');
  });

  it('takes VC_ISSUER_URL, the base URL status lists are named under, in one normal form', () => {
    expect(parseConfig({}, '/h').issuer.publicUrl).toBeUndefined();
    expect(parseConfig({ VC_ISSUER_URL: 'HTTPS://Issuer.Example/vc/' }, '/h').issuer.publicUrl).toBe('https://issuer.example/vc');
    for (const value of ['issuer.example', 'ftp://issuer.example', 'http:/issuer.example']) {
      expect(() => parseConfig({ VC_ISSUER_URL: value }, '/h'), value).toThrow(/VC_ISSUER_URL=\(hidden\): expected a URL such as https:\/\/host\/path/);
    }
    // A base URL: what is appended to it must stay a path, and nothing secret is signed into credentials.
    for (const value of ['http://127.0.0.1:3100?q=1', 'http://127.0.0.1:3100/#f', 'https://issuer.example/vc?x']) {
      expect(() => parseConfig({ VC_ISSUER_URL: value }, '/h'), value).toThrow(/VC_ISSUER_URL="[^"]*": expected a base URL such as https:\/\/issuer\.example\/vc: http or https, without user, password, query or fragment/);
    }
    for (const value of ['http://user:pw@127.0.0.1:3100', 'https://token@issuer.example/vc']) {
      let message = '';
      try {
        parseConfig({ VC_ISSUER_URL: value }, '/h');
      } catch (error) {
        message = (error as Error).message;
      }
      expect(message, value).toMatch(/VC_ISSUER_URL=\(hidden\): expected a base URL/);
      expect(message, value).not.toMatch(/pw|token/);
    }
  });

  it('normalises valid values', () => {
    const config = parseConfig(
      {
        CHAIN_ID: '80002',
        NETWORK_NAME: 'privado:main',
        RPC_URL: 'https://rpc.example.org/',
        WALLET_KEY: 'ab'.repeat(32),
        STATE_CONTRACT_ADDRESS: `0x${'1'.repeat(40)}`,
        PORT: '8080',
        IDP_BLS_SIGN_SEED_PHRASE: `  ${PHRASE.replace(/ /g, '   ')} `,
        VC_TRUSTED_ISSUERS: 'did:key:z1, did:key:z2',
      },
      '/h',
    );
    expect(config.chain).toMatchObject({ chainId: 80002, didBlockchain: 'privado', didNetwork: 'main', rpcUrl: 'https://rpc.example.org' });
    expect(config.chain.walletKey).toBe(`0x${'ab'.repeat(32)}`);
    expect(config.server.port).toBe(8080);
    expect(config.issuer.blsSeedPhrase).toBe(PHRASE);
    expect(config.verifier.trustedIssuers).toEqual(['did:key:z1', 'did:key:z2']);
  });

  it('gives each chain its DID network: local on 152, dev<id> on other development chains, the library\'s for a known chain, else asks for NETWORK_NAME', async () => {
    const network = (vars: Record<string, string>): string => {
      const { chain } = parseConfig(vars, '/h');
      return `${chain.didBlockchain}:${chain.didNetwork}`;
    };
    expect(network({})).toBe('polygon:local');
    expect(network({ CHAIN_ID: '31337' })).toBe('polygon:dev31337');
    expect(network({ CHAIN_ID: '1337' })).toBe('polygon:dev1337');
    const external = { RPC_URL: 'https://rpc.example.org', WALLET_KEY: 'ab'.repeat(32) };
    expect(network({ CHAIN_ID: '80002', ...external })).toBe('polygon:amoy');
    expect(network({ CHAIN_ID: '21000', ...external })).toBe('privado:main');
    // The embedded node never runs a chain id of a public network.
    expect(() => parseConfig({ CHAIN_ID: '80002' }, '/h')).toThrow(/CHAIN_ID="80002": expected a development chain id for the embedded node .*polygon:amoy, a public network; set RPC_URL/);
    expect(network({ CHAIN_ID: '777', NETWORK_NAME: 'mychain:test' })).toBe('mychain:test');
    expect(() => parseConfig({ CHAIN_ID: '777' }, '/h')).toThrow(ConfigError);
    expect(() => parseConfig({ CHAIN_ID: '777' }, '/h')).toThrow(/CHAIN_ID="777": expected a chain whose DID network vc knows, or NETWORK_NAME set for chain 777/);
    // The table is the library's: every chain id it names maps to the same network there.
    const core = await import('@iden3/js-iden3-core');
    for (const [chainId, key] of Object.entries(KNOWN_CHAIN_DID_NETWORKS)) {
      expect(core.ChainIds[key], key).toBe(Number(chainId));
      expect(core.DidMethodNetwork.polygonid?.[key], key).toBeDefined();
    }
    for (const devChainId of DEV_CHAIN_IDS) expect(Object.values(core.ChainIds)).not.toContain(devChainId);
  });

  it('reports every problem at once, by name, with what was expected, without echoing secrets', () => {
    let error: unknown;
    try {
      parseConfig({ CHAIN_ID: 'abc', PORT: '70000', WALLET_KEY: 'secret-key-value', MTP_ADDRESS: '0x12', RPC_URL: 'ftp://x' }, '/h');
    } catch (e) {
      error = e;
    }
    expect(error).toBeInstanceOf(ConfigError);
    const message = (error as ConfigError).message;
    expect(message).toContain('5 problems');
    expect(message).toContain('CHAIN_ID="abc": expected an integer');
    expect(message).toContain('PORT="70000"');
    expect(message).toContain('MTP_ADDRESS="0x12": expected a 0x-prefixed 20-byte hex address');
    expect(message).toContain('RPC_URL=(hidden)');
    expect(message).not.toContain('ftp://x');
    expect(message).toContain('WALLET_KEY=(hidden)');
    expect(message).not.toContain('secret-key-value');
    expect(message).not.toContain('\n');
    expect((error as ConfigError).exitCode).toBe(3);
  });

  it('validates the BIP39 seed phrase: word count and checksum', () => {
    expect(() => parseConfig({ IDP_BLS_SIGN_SEED_PHRASE: 'abandon abandon' }, '/h')).toThrow(/12 or 24 words \(got 2\)/);
    const badChecksum = PHRASE.replace(/about$/, 'abandon');
    expect(() => parseConfig({ IDP_BLS_SIGN_SEED_PHRASE: badChecksum }, '/h')).toThrow(/bad checksum/);
    expect(() => parseConfig({ IDP_BLS_SIGN_SEED_PHRASE: badChecksum }, '/h')).not.toThrow(/abandon/);
  });

  it('accepts the seed phrase in any letter case, as the BBS+ key derivation does, and stores it in lower case', () => {
    const shouted = PHRASE.toUpperCase().replace(/ /g, '\t ');
    expect(parseConfig({ IDP_BLS_SIGN_SEED_PHRASE: shouted }, '/h').issuer.blsSeedPhrase).toBe(PHRASE);
    expect(parseConfig({ IDP_BLS_SIGN_SEED_PHRASE: 'Abandon ' + PHRASE.slice('abandon '.length) }, '/h').issuer.blsSeedPhrase).toBe(PHRASE);
  });

  it('CONFIRMATIONS: 1 on development chains, 10 on others through RPC_URL, or as set (1-1000)', () => {
    const external = { RPC_URL: 'https://rpc.example.org', WALLET_KEY: 'ab'.repeat(32) };
    const confirmations = (vars: Record<string, string>): number => parseConfig(vars, '/h').chain.confirmations;
    expect(confirmations({})).toBe(1);
    expect(confirmations({ CHAIN_ID: '31337', ...external })).toBe(1);
    expect(confirmations({ CHAIN_ID: '80002', ...external })).toBe(10);
    expect(confirmations({ CHAIN_ID: '80002', CONFIRMATIONS: '3', ...external })).toBe(3);
    expect(() => parseConfig({ CONFIRMATIONS: '0' }, '/h')).toThrow(/CONFIRMATIONS/);
  });

  it('requires WALLET_KEY when an external RPC_URL is configured', () => {
    expect(() => parseConfig({ RPC_URL: 'http://127.0.0.1:8545' }, '/h')).toThrow(/WALLET_KEY: required/);
  });

  it('refuses WebSocket RPC URLs and URL spellings parsers repair, without echoing them', () => {
    for (const value of ['ws://127.0.0.1:1/v3/KEY', 'http:/rpc.example/v3/KEY', 'https:rpc.example/v3/KEY']) {
      let message = '';
      try {
        parseConfig({ RPC_URL: value, WALLET_KEY: `0x${'11'.repeat(32)}` }, '/tmp/vc-config-test');
      } catch (error) {
        message = (error as Error).message;
      }
      expect(message, value).toContain('RPC_URL=(hidden): expected a URL');
      expect(message).not.toContain('KEY');
    }
    expect(parseConfig({ RPC_URL: 'HTTPS://Rpc.Example/v3/KEY', WALLET_KEY: `0x${'11'.repeat(32)}` }, '/tmp/vc-config-test').chain.rpcUrl).toBe('https://rpc.example/v3/KEY');
  });
});
