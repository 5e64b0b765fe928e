/**
 * Type-checks a small TypeScript project in-process, as `tsc -p dir` would, with parsed declaration
 * files (lib.dom.d.ts, rxjs, @types/node) shared across the projects of one test file.
 */
import { join } from 'node:path';
import ts from 'typescript';

const sourceCache = new Map<string, ts.SourceFile | undefined>();

/** One diagnostic: file (relative to the project), 1-based line and column, and message. */
export interface TypeDiagnostic {
  readonly file: string | undefined;
  readonly line: number;
  readonly column: number;
  readonly message: string;
}

/** Type-checks the project whose tsconfig.json is in `dir`; returns its diagnostics, those `keep` accepts. */
export function typeCheckProject(
  dir: string,
  keep: (diagnostic: ts.Diagnostic) => boolean = () => true,
): TypeDiagnostic[] {
  const configPath = join(dir, 'tsconfig.json');
  const config = ts.getParsedCommandLineOfConfigFile(
    configPath,
    {},
    {
      ...ts.sys,
      onUnRecoverableConfigFileDiagnostic: () => undefined,
    },
  );
  if (config === undefined) throw new Error(`cannot read ${configPath}`);
  const host = ts.createCompilerHost(config.options);
  const getSourceFile = host.getSourceFile.bind(host);
  host.getSourceFile = (fileName, languageVersion, ...rest) => {
    if (!fileName.endsWith('.d.ts') || fileName.startsWith(dir))
      return getSourceFile(fileName, languageVersion, ...rest);
    const key = `${fileName}|${JSON.stringify(languageVersion)}`;
    if (!sourceCache.has(key)) sourceCache.set(key, getSourceFile(fileName, languageVersion, ...rest));
    return sourceCache.get(key);
  };
  const program = ts.createProgram({ rootNames: config.fileNames, options: config.options, host });
  return [...config.errors, ...ts.getPreEmitDiagnostics(program)].filter(keep).map((d) => {
    const message = ts.flattenDiagnosticMessageText(d.messageText, '\n');
    if (d.file === undefined || d.start === undefined) return { file: undefined, line: 0, column: 0, message };
    const { line, character } = d.file.getLineAndCharacterOfPosition(d.start);
    const file = d.file.fileName.startsWith(dir) ? d.file.fileName.slice(dir.length + 1) : d.file.fileName;
    return { file, line: line + 1, column: character + 1, message };
  });
}

/** `file(line,col): message` lines, like tsc's plain output. */
export function formatDiagnostics(diagnostics: readonly TypeDiagnostic[]): string {
  return diagnostics
    .map((d) => `${d.file ?? '(project)'}(${String(d.line)},${String(d.column)}): ${d.message}`)
    .join('\n');
}
