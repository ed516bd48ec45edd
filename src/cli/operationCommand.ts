/**
 * Builds a commander command from an operation's declaration: one flag per input field (its
 * name, kind and help from the zod schema), JSON files for structured fields, the result to
 * stdout or -o FILE, and errors naming the flag (and file) a field came from.
 */
import type { EventEmitter } from 'node:events';
import { accessSync, constants, statSync } from 'node:fs';
import path from 'node:path';
import { InvalidOptionArgumentError, Option, type Command } from 'commander';
import { z } from 'zod';
import type { AnyOperation } from '../core/operation.js';
import { confirmDelivery, invokeOperation } from '../core/operation.js';
import type { FieldNamer } from '../core/validate.js';
import { InputError } from '../errors.js';
import { crashPoint } from '../faults.js';
import { readJsonFile, readJsonLinesFile, readTextFile } from './io.js';
import type { CliRuntime } from './runtime.js';

/** How the command line gives one input field. */
export type FlagKind = 'switch' | 'integer' | 'text' | 'list' | 'file' | 'files';

export interface FlagInfo {
  field: string;
  /** The flag without dashes, e.g. `keys`. */
  flag: string;
  /** The argument's name in the help, e.g. `did` in `--holder <did>`. */
  argument: string | undefined;
  kind: FlagKind;
  required: boolean;
  description: string;
  choices?: string[];
  defaultValue?: unknown;
  /** Former names of the flag, accepted and hidden (CliCommand.aliases). */
  aliases?: readonly string[];
  /** An argument after the command's words (CliCommand.positional), not a flag: `flag` is its name in capitals. */
  positional?: true;
}

/** One command of the CLI table (src/cli/commands.ts). */
export interface CliCommand {
  /** The words after `vc`, e.g. `holder disclose`. */
  path: string;
  operation: AnyOperation;
  /** Operations chosen by an option instead of one (`vc issuer issue --format bbs|iden3`). */
  variants?: { option: string; description: string; choices: Record<string, AnyOperation>; default: string };
  /**
   * Operations chosen by giving one of their flags (`vc issuer issue --batch FILE`, `vc issuer
   * revoke --id ID`): the field whose flag selects it, and the variant it belongs to (on a command
   * without variants, a label for the help).
   */
  alternatives?: ReadonlyArray<{ field: string; operation: AnyOperation; variant: string }>;
  /** On a command with alternatives but no variants: the label of its own operation in the help (`iden3`). */
  label?: string;
  /** File fields read as JSON Lines (a list, one value per line; errors name the line). */
  jsonLines?: readonly string[];
  /** List fields given as JSON files, comma-separated or the flag repeated (one value per file; errors name the file). */
  fileLists?: readonly string[];
  /** Text fields whose flag names a file holding the text (a JWZ token), read whole (at most 16 MiB). */
  textFiles?: readonly string[];
  /**
   * Text fields given as a link or URL (`scheme://...`, passed as typed) or else as a file holding
   * the text, read whole like textFiles (`vc holder respond --request FILE|URL|iden3comm-link`).
   */
  linkOrFile?: readonly string[];
  /** The result as JSON Lines (one compact value per line, also with --json) when this returns a list. */
  lines?: (result: never) => unknown[] | undefined;
  /** The command's description when it is not the operation's summary. */
  description?: string;
  /** Flags of fields that differ from the field's name in kebab case, with the argument's name: `holder <did>`. */
  flags?: Readonly<Record<string, string>>;
  /**
   * Former flag names of fields, still accepted but not shown in the help: `{ vc: ['vc'] }` keeps
   * `vc verifier verify --vc FILE` working now that the flag is `--credential`. Errors name the
   * flag as it was typed.
   */
  aliases?: Readonly<Record<string, readonly string[]>>;
  /**
   * File fields whose document may be a wrapper: use its `key` member (the first of the keys given
   * that it has) when it has no proof. For a list of files, each file's document.
   */
  unwrap?: Readonly<Record<string, string | readonly string[]>>;
  /** Fields the command line does not offer. */
  omit?: readonly string[];
  /**
   * Fields given as arguments after the command's words, in this order, instead of flags: `id`
   * shows as `<id>` (or `[id]` when the field is optional); a structured field is a JSON file
   * (`{ field: 'credential', name: 'file' }`). Errors name the argument (`ID`) or the file.
   */
  positional?: ReadonlyArray<{ field: string; name: string }>;
  /** A one-line human summary of the result (on stderr). */
  summary?: (result: never, input: Record<string, unknown>) => string | undefined;
  /** The result as text on stdout or in -o FILE instead of JSON (unless --json), e.g. dotenv lines. */
  text?: (result: never) => string;
  /**
   * Text asked for by flags (a QR code, a link): on stdout instead of the JSON (which -o FILE still
   * gets), unless --json; undefined when not asked.
   */
  display?: (result: never, input: Record<string, unknown>) => Promise<string | undefined>;
  /** A warning about the result (on stderr); with the URLs of public documents it names, shown whole. */
  warn?: (result: never) => string | { text: string; publicUrls: readonly string[] } | undefined;
  /** Help text after the options: examples and notes. */
  help?: string;
}

interface SchemaNode {
  _zod: { def: { type: string; innerType?: SchemaNode; defaultValue?: unknown; element?: SchemaNode; options?: SchemaNode[]; entries?: Record<string, string>; out?: SchemaNode } };
  description?: string;
}

/** Strips optional and default wrappers, collecting what they say. */
function unwrapField(schema: z.ZodType): { node: SchemaNode; optional: boolean; defaultValue: unknown; description: string | undefined } {
  let node = schema as unknown as SchemaNode;
  let optional = false;
  let defaultValue: unknown;
  let description = node.description;
  for (;;) {
    const { type, innerType } = node._zod.def;
    if ((type === 'optional' || type === 'default' || type === 'nullable') && innerType !== undefined) {
      optional = true;
      if (type === 'default') defaultValue = node._zod.def.defaultValue;
      node = innerType;
      description ??= node.description;
    } else {
      return { node, optional, defaultValue, description };
    }
  }
}

function kindOf(node: SchemaNode): { kind: FlagKind; choices?: string[] } {
  const { type, element, options, entries, out } = node._zod.def;
  switch (type) {
    case 'pipe':
      // A preprocessed value (a number read from text): the kind of what it becomes.
      return out === undefined ? { kind: 'file' } : kindOf(out);
    case 'boolean':
      return { kind: 'switch' };
    case 'number':
      return { kind: 'integer' };
    case 'string':
      return { kind: 'text' };
    case 'enum':
      return { kind: 'text', choices: Object.values(entries ?? {}) };
    case 'array': {
      // A list of words (strings, or words of an enum) is given comma-separated.
      const item = element === undefined ? undefined : unwrapField(element as unknown as z.ZodType).node._zod.def.type;
      return item === 'string' || item === 'enum' ? { kind: 'list' } : { kind: 'file' };
    }
    case 'union':
      // A value that may be given as a string (a query operand) is given as text.
      return (options ?? []).some((option) => option._zod.def.type === 'string') ? { kind: 'text' } : { kind: 'file' };
    default:
      return { kind: 'file' };
  }
}

const kebab = (name: string): string => name.replace(/[A-Z]/g, (letter) => `-${letter.toLowerCase()}`);

/** The flags of an operation's input fields on a command (its positional arguments aside). */
export function flagsOf(command: Pick<CliCommand, 'flags' | 'omit' | 'aliases' | 'fileLists' | 'positional'>, operation: AnyOperation): FlagInfo[] {
  const input = operation.input;
  if (!(input instanceof z.ZodObject)) throw new Error(`operation ${operation.name}: the command line needs an object input`);
  const positional = (command.positional ?? []).map((entry) => entry.field);
  return Object.entries(input.shape as Record<string, z.ZodType>)
    .filter(([field]) => !(command.omit ?? []).includes(field) && !positional.includes(field))
    .map(([field, schema]) => {
      const { node, optional, defaultValue, description } = unwrapField(schema);
      const { kind, choices } = command.fileLists?.includes(field) === true ? { kind: 'files' as const, choices: undefined } : kindOf(node);
      const [flag, argument] = (command.flags?.[field] ?? kebab(field)).split(' ');
      const aliases = command.aliases?.[field];
      return {
        field,
        flag: flag!,
        argument: argument?.replace(/[<>]/g, ''),
        kind,
        required: !optional,
        description: description ?? field,
        ...(choices === undefined ? {} : { choices }),
        ...(defaultValue === undefined ? {} : { defaultValue }),
        ...(aliases === undefined ? {} : { aliases }),
      };
    });
}

/**
 * The positional arguments of a command (CliCommand.positional), as flags without dashes: `flag`
 * is the argument's name in capitals (ID, FILE), how errors name it.
 */
export function positionalsOf(command: Pick<CliCommand, 'positional'>, operation: AnyOperation): FlagInfo[] {
  const input = operation.input;
  if (!(input instanceof z.ZodObject)) throw new Error(`operation ${operation.name}: the command line needs an object input`);
  const shape = input.shape as Record<string, z.ZodType>;
  return (command.positional ?? []).map(({ field, name }) => {
    const schema = shape[field];
    if (schema === undefined) throw new Error(`operation ${operation.name}: no field ${field} for the argument <${name}>`);
    const { node, optional, description } = unwrapField(schema);
    return { field, flag: name.toUpperCase(), argument: name, kind: kindOf(node).kind, required: !optional, description: description ?? field, positional: true };
  });
}

function placeholder(info: FlagInfo): string {
  if (info.argument !== undefined) return `<${info.argument}>`;
  if (info.kind === 'file') return '<file>';
  if (info.kind === 'files') return '<files>';
  if (info.kind === 'list') return '<list>';
  if (info.kind === 'integer') return '<n>';
  return `<${info.flag.split('-').pop()}>`;
}

/** The option key commander stores a flag under (camel case of the flag). */
function optionKey(flag: string): string {
  return flag.replace(/-([a-z])/g, (_match, letter: string) => letter.toUpperCase());
}

function integerArgument(flag: string): (value: string) => number {
  return (value) => {
    if (!/^-?\d+$/.test(value.trim()) || !Number.isSafeInteger(Number(value))) throw new InvalidOptionArgumentError(`--${flag} expects an integer, got "${value}"`);
    return Number(value);
  };
}

function commaList(value: string): string[] {
  return value.split(',').map((item) => item.trim()).filter((item) => item !== '');
}

/**
 * A flag that may be repeated: its uses add up (a list, a list of files, or a flag two operations
 * read with different shapes, one of them a list). refuseRepeatedFlags leaves these alone.
 */
class RepeatableOption extends Option {}

/**
 * The option of a flag. `given` says whether the flag was already typed on this command line (its
 * value then comes from an earlier use, not from a default), so that a list's uses add up and
 * replace its default.
 */
function optionFor(info: FlagInfo, given: () => boolean, prefix = '', repeatable = false): Option {
  const listed = info.kind === 'list' || info.kind === 'files';
  const description = `${prefix}${info.description}${info.kind === 'file' ? ' (a JSON file)' : ''}${info.kind === 'files' ? ' (JSON files, comma-separated or the flag repeated)' : ''}${info.kind === 'list' ? ' (comma-separated or the flag repeated)' : ''}`;
  const flags = info.kind === 'switch' ? `--${info.flag}` : `--${info.flag} ${placeholder(info)}`;
  const option = listed || repeatable ? new RepeatableOption(flags, description) : new Option(flags, description);
  if (info.choices !== undefined) option.choices(info.choices);
  if (info.kind === 'integer') option.argParser(integerArgument(info.flag));
  const earlier = (previous: unknown): string[] => (given() && Array.isArray(previous) ? (previous as string[]) : []);
  // A list (`--value FRA,DEU`, `--value FRA --value DEU`) and files (`--query a.json --query b.json`): the uses add up.
  if (listed) option.argParser((value: string, previous: unknown) => [...earlier(previous), ...commaList(value)]);
  // A flag of several shapes keeps each use as typed; the operation chosen reads them (inputFrom).
  else if (repeatable) option.argParser((value: string, previous: unknown) => [...earlier(previous), value]);
  if (info.defaultValue !== undefined && info.kind !== 'file' && info.kind !== 'files') option.default(info.defaultValue);
  // A required field without a default must be given (commander says so, exit 2).
  if (info.required && info.defaultValue === undefined) option.makeOptionMandatory();
  return option;
}

/**
 * Refuses a flag of one value given twice (`--op $lt --op $gt`, `--home a --home b`), on `command`
 * and every command under it: commander would keep the last use without a word. Switches may be
 * repeated; a RepeatableOption's uses add up. Said as commander says its usage errors (exit 2).
 */
export function refuseRepeatedFlags(command: Command): void {
  for (const option of command.options) {
    if (option instanceof RepeatableOption || option.isBoolean() || option.negate) continue;
    const key = option.attributeName();
    // Runs before commander's own listener stores the value: a source of 'cli' is an earlier use.
    (command as unknown as EventEmitter).prependListener(`option:${option.name()}`, () => {
      if (command.getOptionValueSource(key) !== 'cli') return;
      command.error(`error: option '${option.long ?? option.flags}' given twice: it takes one value; give it once`, { code: 'vc.optionRepeated', exitCode: 2 });
    });
  }
  command.commands.forEach(refuseRepeatedFlags);
}

/**
 * How this command names input fields: the flag (with the file it read), then the path inside
 * the file, e.g. `--subject alice.json: field birthDate`, `--keys`.
 */
function cliFieldNamer(flags: FlagInfo[], files: Map<string, string>, lines: Map<string, number[]>, fileLists: Map<string, string[]> = new Map()): FieldNamer {
  return (path) => {
    if (path === '') return 'options';
    const found = flagOfField(flags, path);
    if (found === undefined) return path;
    const { info } = found;
    const listed = fileOfList(fileLists, info, found.rest);
    if (listed !== undefined) return listed.rest === '' ? `--${info.flag} ${listed.file}` : `--${info.flag} ${listed.file}: field ${listed.rest}`;
    const { line, rest } = lineOf(lines, info, found.rest);
    const dashes = isPositional(info) ? '' : '--';
    const file = files.get(info.field) ?? 'FILE';
    const where = info.kind === 'file' || files.has(info.field) ? `${isPositional(info) ? file : `--${info.flag} ${file}`}${line === undefined ? '' : ` line ${line}`}` : `${dashes}${info.flag}`;
    // A comma-separated list names its item by position (`--status item 2`), not as a field `[1]`.
    const item = info.kind === 'list' ? /^\[(\d+)\]\.?(.*)$/.exec(rest) : null;
    if (item !== null) return `${where} item ${Number(item[1]) + 1}${item[2] === '' ? '' : `: field ${item[2]}`}`;
    return rest === '' ? where : `${where}: field ${rest}`;
  };
}

/** In a list of files, the file of a path's list index (`[1].proof` is the second file, field `proof`). */
function fileOfList(fileLists: Map<string, string[]>, info: FlagInfo, rest: string): { file: string; rest: string } | undefined {
  const files = fileLists.get(info.field);
  const index = /^\[(\d+)\]\.?/.exec(rest);
  if (files === undefined || index === null) return undefined;
  const file = files[Number(index[1])];
  return file === undefined ? undefined : { file, rest: rest.slice(index[0].length) };
}

/** In a JSON Lines field, the line of a path's list index (`[2].did` is line N, field `did`). */
function lineOf(lines: Map<string, number[]>, info: FlagInfo, rest: string): { line: number | undefined; rest: string } {
  const numbers = lines.get(info.field);
  const index = /^\[(\d+)\]\.?/.exec(rest);
  if (numbers === undefined || index === null) return { line: undefined, rest };
  return { line: numbers[Number(index[1])], rest: rest.slice(index[0].length) };
}

/** Whether the field is given as an argument of the command (positionalsOf), not a flag. */
function isPositional(info: FlagInfo): boolean {
  return info.positional === true;
}

/** The flag of an input path's top field, and the rest of the path (inside its file). */
function flagOfField(flags: FlagInfo[], path: string): { info: FlagInfo; rest: string } | undefined {
  const top = path.split(/[.[]/, 1)[0]!;
  const info = flags.find((candidate) => candidate.field === top);
  return info === undefined ? undefined : { info, rest: path.slice(top.length).replace(/^\./, '') };
}

/** The flag (with the path inside its file) an error's field came from, for --json error output. */
function cliFieldName(flags: FlagInfo[], field: string | undefined, lines: Map<string, number[]> = new Map()): string | undefined {
  if (field === undefined) return undefined;
  if (field === 'output') return '--output';
  const found = flagOfField(flags, field);
  if (found === undefined) return field;
  const { line, rest } = lineOf(lines, found.info, found.rest);
  const where = `${isPositional(found.info) ? '' : '--'}${found.info.flag}${line === undefined ? '' : ` line ${line}`}`;
  return rest === '' ? where : `${where} ${rest}`;
}

/** Reads the operation's input from the parsed options: flags as they are, files as JSON. */
function inputFrom(
  command: CliCommand,
  flags: FlagInfo[],
  options: Record<string, unknown>,
  files: Map<string, string>,
  lines: Map<string, number[]>,
  typedAliases: ReadonlyMap<string, string> = new Map(),
  fileLists: Map<string, string[]> = new Map(),
): Record<string, unknown> {
  const input: Record<string, unknown> = {};
  for (const info of flags) {
    const given = options[optionKey(info.flag)];
    if (given === undefined) continue;
    const value = ownShape(info, given, `${isPositional(info) ? '' : '--'}${typedAliases.get(info.flag) ?? info.flag}`);
    if (info.kind === 'switch') {
      if (value === true) input[info.field] = true;
      continue;
    }
    if (info.kind === 'files') {
      const typed = `--${typedAliases.get(info.flag) ?? info.flag}`;
      const list = value as string[];
      if (list.length === 0) throw new InputError(`${typed}: expected one or more JSON files, comma-separated`, { field: info.field });
      fileLists.set(info.field, list);
      input[info.field] = list.map((file) => {
        try {
          return unwrapDocument(command, info.field, readJsonFile(file, typed));
        } catch (error) {
          if (error instanceof InputError) throw new (error.constructor as typeof InputError)(error.message, { field: info.field, cause: error });
          throw error;
        }
      });
      continue;
    }
    const link = info.kind === 'text' && command.linkOrFile?.includes(info.field) === true && /^[A-Za-z][A-Za-z0-9+.-]*:\/\//.test(String(value));
    if (info.kind === 'text' && !link && (command.textFiles?.includes(info.field) === true || command.linkOrFile?.includes(info.field) === true)) {
      const file = String(value);
      files.set(info.field, file);
      try {
        input[info.field] = readTextFile(file, `--${typedAliases.get(info.flag) ?? info.flag}`);
      } catch (error) {
        if (error instanceof InputError) throw new (error.constructor as typeof InputError)(error.message, { field: info.field, cause: error });
        throw error;
      }
      continue;
    }
    if (info.kind !== 'file') {
      // A flag shared with another operation's field of another shape arrives as typed (addOperationCommand).
      input[info.field] = info.kind === 'list' && typeof value === 'string' ? commaList(value) : value;
      continue;
    }
    const file = String(value);
    files.set(info.field, file);
    const typed = isPositional(info) ? info.flag : `--${typedAliases.get(info.flag) ?? info.flag}`;
    let document: unknown;
    try {
      if (command.jsonLines?.includes(info.field) === true) {
        const read = readJsonLinesFile(file, typed);
        lines.set(info.field, read.lines);
        document = read.values;
      } else {
        document = readJsonFile(file, typed);
      }
    } catch (error) {
      // A file that cannot be read or parsed is the flag's problem, wherever inside it.
      if (error instanceof InputError) throw new (error.constructor as typeof InputError)(error.message, { field: info.field, cause: error });
      throw error;
    }
    input[info.field] = unwrapDocument(command, info.field, document);
  }
  return input;
}

/**
 * The value of a flag as this operation takes it. A flag shared with another operation's field of
 * another shape, one of them a list, arrives as a list of its uses as typed (addOperationCommand):
 * a list reads every use, comma-separated; a field of one value refuses a second use.
 */
function ownShape(info: FlagInfo, value: unknown, typed: string): unknown {
  if (!Array.isArray(value) || info.kind === 'files') return value;
  if (info.kind === 'list') return value.flatMap((item: unknown) => (typeof item === 'string' ? commaList(item) : [item]));
  if (value.length > 1) throw new InputError(`${typed} given twice: it takes one value here; give it once`, { field: info.field });
  return value[0];
}

/** A file's document, or its member named by the command's `unwrap` for the field when it is such a wrapper (CliCommand.unwrap). */
function unwrapDocument(command: CliCommand, field: string, document: unknown): unknown {
  const given = command.unwrap?.[field];
  if (given === undefined || typeof document !== 'object' || document === null || Array.isArray(document) || 'proof' in document) return document;
  const key = (typeof given === 'string' ? [given] : given).find((candidate) => candidate in document);
  return key === undefined ? document : (document as Record<string, unknown>)[key];
}

/**
 * Makes `cmd` accept the former names of its flags (FlagInfo.aliases): before commander parses the
 * command's arguments, `--old VALUE` and `--old=VALUE` become `--new ...`, so the required-option
 * check, the parsers and the choices all apply to them. Returns, after parsing, the alias typed for
 * each flag (to name it in errors as the user wrote it).
 */
function acceptAliases(cmd: Command, flags: FlagInfo[]): Map<string, string> {
  const canonical = new Map<string, string>();
  for (const info of flags) {
    for (const alias of info.aliases ?? []) {
      const known = canonical.get(alias);
      if (known !== undefined && known !== info.flag) throw new Error(`${cmd.name()}: --${alias} is a former name of both --${known} and --${info.flag}`);
      if (flags.some((other) => other.flag === alias)) throw new Error(`${cmd.name()}: --${alias} is both a flag and a former name of --${info.flag}`);
      canonical.set(alias, info.flag);
    }
  }
  const typed = new Map<string, string>();
  if (canonical.size === 0) return typed;
  const parse = cmd.parseOptions.bind(cmd);
  cmd.parseOptions = (args: string[]) => {
    typed.clear();
    const rewritten: string[] = [];
    for (let i = 0; i < args.length; i += 1) {
      const arg = args[i]!;
      if (arg === '--') {
        rewritten.push(...args.slice(i));
        break;
      }
      const [name, ...value] = arg.split('=');
      const flag = name!.startsWith('--') ? canonical.get(name!.slice(2)) : undefined;
      if (flag !== undefined) {
        typed.set(flag, name!.slice(2));
        rewritten.push(value.length === 0 ? `--${flag}` : `--${flag}=${value.join('=')}`);
        continue;
      }
      rewritten.push(arg);
      // The value of an option is never read as a flag: `--keys --vc` keeps `--vc` as the value.
      const option = cmd.options.find((candidate) => candidate.long === arg || candidate.short === arg);
      if (option?.required === true && i + 1 < args.length) rewritten.push(args[++i]!);
    }
    return parse(rewritten);
  };
  return typed;
}

/** Refuses an -o path whose directory is missing or not writable, or that is a directory. */
function checkOutputPath(file: string): void {
  const directory = path.dirname(path.resolve(file));
  try {
    if (!statSync(directory).isDirectory()) throw new InputError(`-o ${file}: ${directory} is not a directory`, { field: 'output' });
    accessSync(directory, constants.W_OK);
  } catch (error) {
    if (error instanceof InputError) throw error;
    const code = (error as NodeJS.ErrnoException).code;
    throw new InputError(`-o ${file}: ${code === 'ENOENT' ? `no directory ${directory}` : code === 'EACCES' ? `cannot write in ${directory}` : `cannot write there (${code ?? 'unknown'})`}; nothing was done`, { field: 'output' });
  }
  let isDirectory = false;
  try {
    isDirectory = statSync(file).isDirectory();
  } catch {
    isDirectory = false;
  }
  if (isDirectory) throw new InputError(`-o ${file}: is a directory; nothing was done`, { field: 'output' });
}

/** Adds one command of the table to the program. */
export function addOperationCommand(parent: Command, name: string, command: CliCommand, rt: CliRuntime): Command {
  const variants = command.variants;
  const alternatives = command.alternatives ?? [];
  // Every operation the command can run, each under the label that chooses it.
  const choices: Array<readonly [string, AnyOperation]> = [
    ...(variants === undefined ? [[command.label ?? '', command.operation] as const] : Object.entries(variants.choices)),
    ...alternatives.map((alternative) => [`${alternative.variant === '' ? '' : `${alternative.variant} `}with --${flagOf(command, alternative.field)}`, alternative.operation] as const),
  ];
  const operations = choices.map(([, operation]) => operation);
  const flagsByOperation = new Map(operations.map((operation) => [operation, flagsOf(command, operation)]));
  const cmd = parent.command(name).description(command.description ?? command.operation.summary);
  if (variants !== undefined) {
    cmd.addOption(new Option(`--${variants.option} <${variants.option}>`, variants.description).choices(Object.keys(variants.choices)).default(variants.default));
  }
  // Each flag once; a flag only some operations take says which.
  const seen = new Set<string>();
  for (const [label, operation] of choices) {
    for (const info of flagsByOperation.get(operation)!) {
      if (seen.has(info.flag)) continue;
      seen.add(info.flag);
      const takenBy = choices.filter(([, other]) => flagsByOperation.get(other)!.some((f) => f.flag === info.flag)).map(([key]) => key);
      // A flag of the command's own operation alone (no variants) needs no prefix.
      const ownOnly = (takenBy.length === 1 && takenBy[0] === '') || alternatives.some((alternative) => alternative.operation === operation && flagOf(command, alternative.field) === info.flag);
      const prefix = choices.length > 1 && takenBy.length < choices.length && !ownOnly ? `${takenBy.filter((key) => key !== '').join(', ') || label}: ` : '';
      // One flag, fields of different shapes (`--status` of iden3 and of bbs-2023): taken as typed,
      // each operation reads it as its own (inputFrom) and its schema checks it.
      const infos = choices.map(([, other]) => flagsByOperation.get(other)!.find((f) => f.flag === info.flag)).filter((f): f is FlagInfo => f !== undefined);
      const shapes = new Set(infos.map((f) => `${f.kind}:${f.choices?.join('|') ?? ''}`));
      const { choices: _choices, ...plain } = info;
      const shared: FlagInfo | undefined =
        shapes.size > 1
          ? {
              ...plain,
              kind: 'text',
              // Each meaning once, with the uses that take it (`iden3, iden3 with --batch: ...`).
              description: [
                ...choices
                  .map(([key, other]) => [key, flagsByOperation.get(other)!.find((f) => f.flag === info.flag)] as const)
                  .filter((entry): entry is readonly [string, FlagInfo] => entry[1] !== undefined)
                  .reduce((meanings, [key, f]) => {
                    const text = `${f.description}${f.choices === undefined ? '' : ` (${f.choices.join(', ')})`}${f.kind === 'list' ? ' (comma-separated)' : ''}`;
                    meanings.set(text, [...(meanings.get(text) ?? []), key]);
                    return meanings;
                  }, new Map<string, string[]>()),
              ]
                .map(([text, keys]) => `${keys.join(', ')}: ${text}`)
                .join('; '),
            }
          : undefined;
      // With several operations, a field one of them requires is checked by that one's schema.
      const typed = (): boolean => cmd.getOptionValueSource(optionKey(info.flag)) === 'cli';
      const severalShapes = shared !== undefined && infos.some((f) => f.kind === 'list' || f.kind === 'files');
      cmd.addOption(optionFor(choices.length === 1 ? info : { ...(shared ?? info), required: false }, typed, shared === undefined ? prefix : '', severalShapes));
    }
  }
  const positionals = positionalsOf(command, command.operation);
  for (const info of positionals) cmd.argument(info.required ? `<${info.argument}>` : `[${info.argument}]`, `${info.description}${info.kind === 'file' ? ' (a JSON file)' : ''}`);
  cmd.option('-o, --output <file>', 'write the result to this file instead of stdout');
  if (command.help !== undefined) cmd.addHelpText('after', `\n${command.help}`);
  // Former flag names are read as the flag they became; errors name them as typed.
  const typedAliases = acceptAliases(cmd, [...flagsByOperation.values()].flat());
  const asTyped = (flags: FlagInfo[]): FlagInfo[] => flags.map((info) => (typedAliases.has(info.flag) ? { ...info, flag: typedAliases.get(info.flag)! } : info));
  cmd.action(async (...args: unknown[]) => {
    // commander passes the arguments first, then the options: the arguments are read as their flags would be.
    const options = { ...(args[positionals.length] as Record<string, unknown>) };
    positionals.forEach((info, index) => {
      if (args[index] !== undefined) options[optionKey(info.flag)] = args[index];
    });
    let operation = command.operation;
    const lines = new Map<string, number[]>();
    rt.renderField = (field) => cliFieldName(asTyped([...[...flagsByOperation.values()].flat(), ...positionals]), field);
    // Nothing is done when the result could not be written: the output path is checked first.
    if (options.output !== undefined) checkOutputPath(String(options.output));
    const given = (flag: string): boolean => cmd.getOptionValueSource(optionKey(flag)) === 'cli';
    let chosenBy: string | undefined;
    let choice: string | undefined;
    if (variants !== undefined) {
      choice = String(options[optionKey(variants.option)]);
      operation = variants.choices[choice]!;
      chosenBy = `--${variants.option} ${choice}`;
    }
    // Without variants, an alternative's flag alone chooses it (`vc issuer revoke --id ID`, `vc verifier verify --vp FILE`).
    const alternative = alternatives.find((candidate) => (variants === undefined || candidate.variant === choice) && given(flagOf(command, candidate.field)));
    if (alternative !== undefined) {
      operation = alternative.operation;
      chosenBy = `--${flagOf(command, alternative.field)}`;
    } else if (variants === undefined && alternatives.length > 0 && command.label !== undefined) {
      chosenBy = `the ${command.label} form`;
      // Neither form's flags: say both, rather than only what the first form misses.
      const missing = flagsByOperation.get(command.operation)!.filter((info) => info.required && info.defaultValue === undefined && !given(info.flag));
      if (missing.length > 0) {
        const forms = [
          `${missing.map((info) => `--${info.flag} ${placeholder(info)}`).join(' ')} (${command.label})`,
          ...alternatives.map((candidate) => {
            const info = flagsOf(command, candidate.operation).find((flag) => flag.field === candidate.field);
            return `--${flagOf(command, candidate.field)}${info === undefined ? '' : ` ${placeholder(info)}`} (${candidate.variant})`;
          }),
        ];
        throw new InputError(`expected ${forms.join(' or ')}`, { field: missing[0]!.field });
      }
    }
    if (chosenBy !== undefined || alternatives.length > 0) {
      const own = new Set(flagsByOperation.get(operation)!.map((info) => info.flag));
      for (const info of [...flagsByOperation.values()].flat()) {
        if (own.has(info.flag) || !given(info.flag)) continue;
        const typed = `--${typedAliases.get(info.flag) ?? info.flag}`;
        if (chosenBy !== undefined) throw new InputError(`${typed} does not apply to ${chosenBy}`, { field: info.field });
        const takers = alternatives.filter((candidate) => flagsByOperation.get(candidate.operation)!.some((flag) => flag.flag === info.flag)).map((candidate) => `--${flagOf(command, candidate.field)}`);
        throw new InputError(`${typed} applies only with ${takers.join(' or ')}`, { field: info.field });
      }
    }
    const flags = [...flagsByOperation.get(operation)!, ...positionals];
    if (variants === undefined && alternatives.length > 0) {
      // Its flags are not mandatory to commander (another operation may be chosen): said here as commander would.
      const missing = flagsByOperation.get(operation)!.find((info) => info.required && info.defaultValue === undefined && !given(info.flag));
      if (missing !== undefined) {
        const others = operation === command.operation ? ` (or ${alternatives.map((candidate) => `--${flagOf(command, candidate.field)}`).join(' or ')} for ${alternatives.length === 1 ? 'the other use' : 'the other uses'})` : '';
        throw new InputError(`required option '--${missing.flag} ${placeholder(missing)}' not specified${others}`, { field: missing.field });
      }
    }
    const named = asTyped(flags);
    rt.renderField = (field) => cliFieldName(named, field, lines);
    const files = new Map<string, string>();
    const fileLists = new Map<string, string[]>();
    const input = inputFrom(command, flags, options, files, lines, typedAliases, fileLists);
    const ctx = await rt.ctx();
    const call = { names: cliFieldNamer(named, files, lines, fileLists) };
    const result: unknown = await invokeOperation(ctx, operation, input, call);
    const failure = operation.failure?.(result);
    const summary = failure === undefined ? command.summary?.(result as never, input) : undefined;
    crashPoint('output:pending');
    const shown = failure === undefined ? await command.display?.(result as never, input) : undefined;
    rt.output.result(result, {
      outFile: options.output as string | undefined,
      summary,
      text: shown !== undefined && options.output === undefined ? () => shown : (command.text as ((value: unknown) => string) | undefined),
      lines: command.lines as ((value: unknown) => unknown[] | undefined) | undefined,
    });
    if (shown !== undefined && options.output !== undefined && !rt.output.json) rt.output.rawOut(`${shown}\n`);
    crashPoint('output:written');
    // Only now, with the result in the file (or on stdout), may a re-run do the work again.
    await confirmDelivery(ctx, operation, input, result, call);
    const warning = command.warn?.(result as never);
    if (typeof warning === 'string') rt.output.warn(warning);
    else if (warning !== undefined) rt.output.warn(warning.text, warning.publicUrls);
    if (failure !== undefined) {
      rt.output.failure(failure);
      rt.exitCode = 1;
    }
  });
  return cmd;
}

/**
 * Every operation a command runs, with the arguments that choose it: `''` for the command's own
 * operation, `--format bbs` for a variant, `--batch <file>` for an alternative.
 */
export function operationsOfCommand(command: CliCommand): Array<{ operation: AnyOperation; chosenWith: string }> {
  const found: Array<{ operation: AnyOperation; chosenWith: string }> =
    command.variants === undefined
      ? [{ operation: command.operation, chosenWith: '' }]
      : Object.entries(command.variants.choices).map(([choice, operation]) => ({ operation, chosenWith: `--${command.variants!.option} ${choice}` }));
  for (const alternative of command.alternatives ?? []) {
    const info = flagsOf(command, alternative.operation).find((candidate) => candidate.field === alternative.field);
    found.push({ operation: alternative.operation, chosenWith: `--${flagOf(command, alternative.field)}${info === undefined ? '' : ` ${placeholder(info)}`}` });
  }
  return found;
}

/** The flag of a field on a command (its rename, or the field in kebab case). */
function flagOf(command: Pick<CliCommand, 'flags'>, field: string): string {
  return (command.flags?.[field] ?? kebab(field)).split(' ')[0]!;
}
