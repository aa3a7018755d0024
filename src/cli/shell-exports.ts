/**
 * Copy-paste lines that set environment variables, in the shell of the machine (bash `export`
 * lines are no use on Windows). On Windows, PowerShell's `$env:` lines and
 * cmd.exe's `set` lines, each under its name; elsewhere POSIX `export`. Values are the service's
 * own (URLs, keys, credential keys): no quoting is needed, and none is added, so the lines read
 * the same in the README.
 */
export function shellExportLines(vars: [string, string][], platform: NodeJS.Platform = process.platform): string[] {
  if (platform !== 'win32') return vars.map(([name, value]) => `  export ${name}=${value}`);
  return [
    '  PowerShell:',
    ...vars.map(([name, value]) => `    $env:${name}="${value}"`),
    '  cmd.exe:',
    ...vars.map(([name, value]) => `    set ${name}=${value}`),
  ];
}
