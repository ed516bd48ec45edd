/**
 * Offline JSON-LD contexts and JSON schemas for iden3 credentials. The js-sdk fetches contexts
 * and schemas by URL (to build credentials, merklize them and parse queries); `vc` answers every
 * such request from documents it knows, so nothing ever goes to the network:
 * - bundled types: each fixtures/schemas/<name>.json whose `$metadata.uris.jsonLdContext` names a
 *   context shipped as fixtures/contexts/<name>.json (PassportCredential is iden3-passport-v1);
 * - registered types: a context and schema given by the user (`vc issuer issue --context FILE
 *   --schema FILE`), kept in the store namespace `iden3.documents` under their URLs;
 * - the W3C and iden3 core documents the js-sdk embeds (credentials v1, iden3proofs, auth).
 * An unknown URL is an error naming it, never a download.
 */
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { UnprocessableError } from '../errors.js';
import { packageRoot } from '../paths.js';
import type { WalletStore } from '../store/store.js';
import type { Sdk } from './modules.js';

const DOCUMENTS_NS = 'iden3.documents';

/** The context URL of the bundled PassportCredential. */
export const PASSPORT_CONTEXT_URL = 'https://schemas.vc.example/iden3/passport/v1/passport.jsonld';
/** The JSON schema URL of the bundled PassportCredential. */
export const PASSPORT_SCHEMA_URL = 'https://schemas.vc.example/iden3/passport/v1/passport.json';
export const PASSPORT_TYPE = 'PassportCredential';

/** A credential type `vc` can issue: its name, schema and context URLs. */
export interface CredentialTypeInfo {
  type: string;
  schemaUrl: string;
  contextUrl: string;
}

interface JsonSchemaDocument {
  $id?: string;
  $metadata?: { type?: string; uris?: { jsonLdContext?: string } };
}

/** The package root (where package.json and fixtures/ live), shared with the rest of vc. */
export { packageRoot };

interface BundledDocuments {
  documents: Map<string, unknown>;
  types: CredentialTypeInfo[];
}

function readJson(file: string): unknown {
  return JSON.parse(readFileSync(file, 'utf8')) as unknown;
}

/** Reads the bundled schema/context pairs from fixtures/. */
export function bundledDocuments(): BundledDocuments {
  const root = packageRoot();
  const schemasDir = path.join(root, 'fixtures', 'schemas');
  const documents = new Map<string, unknown>();
  const types: CredentialTypeInfo[] = [];
  if (!existsSync(schemasDir)) return { documents, types };
  for (const file of readdirSync(schemasDir).filter((f) => f.endsWith('.json')).sort()) {
    const schema = readJson(path.join(schemasDir, file)) as JsonSchemaDocument;
    const contextUrl = schema.$metadata?.uris?.jsonLdContext;
    const type = schema.$metadata?.type;
    const contextFile = path.join(root, 'fixtures', 'contexts', file);
    if (schema.$id === undefined || contextUrl === undefined || type === undefined || !existsSync(contextFile)) continue;
    documents.set(schema.$id, schema);
    documents.set(contextUrl, readJson(contextFile));
    types.push({ type, schemaUrl: schema.$id, contextUrl });
  }
  return { documents, types };
}

/** The document loader shape of jsonld / js-jsonld-merklization. */
export type DocumentLoader = (url: string) => Promise<{ document: unknown; documentUrl: string; contextUrl: null }>;

/** Resolves credential types and documents from the bundle, the store and the js-sdk's embedded set. */
export class Iden3Documents {
  private readonly bundled: BundledDocuments;

  constructor(
    private readonly store: WalletStore,
    private readonly sdk: Sdk,
  ) {
    this.bundled = bundledDocuments();
  }

  /** Every issuable type: bundled first, then registered ones. */
  types(): CredentialTypeInfo[] {
    const registered = this.store.list<CredentialTypeInfo>(DOCUMENTS_NS, 'type:').map((r) => r.value);
    return [...this.bundled.types, ...registered.filter((r) => !this.bundled.types.some((b) => b.type === r.type))];
  }

  /** The type named `type`, or an UnprocessableError listing the known ones. */
  typeInfo(type: string): CredentialTypeInfo {
    const found = this.types().find((t) => t.type === type);
    if (found === undefined) {
      const known = this.types().map((t) => t.type).join(', ');
      throw new UnprocessableError(`unknown credential type "${type}" (known: ${known}); its JSON-LD context and JSON schema must be registered first (on the command line: vc issuer issue --context FILE --schema FILE)`, { field: 'type' });
    }
    return found;
  }

  /** The type whose JSON-LD context is `contextUrl` and name `type`, if known. */
  findByContext(contextUrl: string, type: string): CredentialTypeInfo | undefined {
    return this.types().find((t) => t.contextUrl === contextUrl && t.type === type);
  }

  /**
   * Registers a user-provided type from its JSON schema (iden3 JsonSchema2023 with $id and
   * $metadata.uris.jsonLdContext) and JSON-LD context documents. Returns the type info.
   */
  register(schema: unknown, context: unknown, source: { schema: string; context: string }): CredentialTypeInfo {
    const s = schema as JsonSchemaDocument;
    if (typeof s !== 'object' || s === null || typeof s.$id !== 'string') {
      throw new UnprocessableError(`${source.schema}: a JSON schema with a string $id (its URL) is expected`, { field: 'schema' });
    }
    const contextUrl = s.$metadata?.uris?.jsonLdContext;
    const type = s.$metadata?.type;
    if (typeof contextUrl !== 'string' || typeof type !== 'string') {
      throw new UnprocessableError(`${source.schema}: $metadata.type and $metadata.uris.jsonLdContext are required (iden3 JSON schema)`, { field: 'schema' });
    }
    const ctx = context as { '@context'?: unknown };
    if (typeof ctx !== 'object' || ctx === null || ctx['@context'] === undefined) {
      throw new UnprocessableError(`${source.context}: a JSON-LD document with an @context is expected`, { field: 'context' });
    }
    const info: CredentialTypeInfo = { type, schemaUrl: s.$id, contextUrl };
    this.store.transaction(() => {
      this.store.put(DOCUMENTS_NS, `url:${s.$id}`, schema);
      this.store.put(DOCUMENTS_NS, `url:${contextUrl}`, context);
      this.store.put(DOCUMENTS_NS, `type:${type}`, info);
    });
    return info;
  }

  /** The document at `url` if known offline. */
  document(url: string): unknown {
    return this.bundled.documents.get(url) ?? this.store.get<unknown>(DOCUMENTS_NS, `url:${url}`);
  }

  /** A jsonld document loader answering only from known documents (never the network). */
  loader(): DocumentLoader {
    const { VerifiableConstants } = this.sdk;
    // The js-sdk's cacheLoader holds these documents in memory; it only downloads URLs it lacks,
    // so it is called for exactly these.
    const embedded = new Set<string>([
      VerifiableConstants.JSONLD_SCHEMA.W3C_CREDENTIAL_2018,
      VerifiableConstants.JSONLD_SCHEMA.IDEN3_CREDENTIAL,
      VerifiableConstants.JSONLD_SCHEMA.IDEN3_DISPLAY_METHOD,
      VerifiableConstants.AUTH.AUTH_BJJ_CREDENTIAL_SCHEMA_JSONLD_URL,
    ]);
    const sdkLoader = this.sdk.cacheLoader();
    return async (url: string) => {
      const known = this.document(url);
      if (known !== undefined) return { document: known, documentUrl: url, contextUrl: null };
      if (url === VerifiableConstants.AUTH.AUTH_BJJ_CREDENTIAL_SCHEMA_JSON_URL) {
        return { document: JSON.parse(VerifiableConstants.AUTH.AUTH_BJJ_CREDENTIAL_SCHEMA_JSON) as unknown, documentUrl: url, contextUrl: null };
      }
      if (embedded.has(url)) {
        const remote = await sdkLoader(url);
        return { document: remote.document as unknown, documentUrl: url, contextUrl: null };
      }
      throw new UnprocessableError(`document ${url} is not available offline (vc resolves JSON-LD contexts and schemas only from bundled or registered files)`, { field: 'context' });
    };
  }
}
