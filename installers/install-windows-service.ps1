# Windows service registration template for localsign.exe (run as Administrator).
# The `service install` command that does this is not in this version. Caveat: localsign.exe does
# not speak the Service Control Manager protocol yet, so SCM reports a start timeout unless the
# exe runs under a service host (the packaging issue adds that); until then use a scheduled task.
param(
  [string]$Exe = "$env:ProgramFiles\localsign\localsign.exe",
  [string]$ConfigDir = "$env:ProgramData\localsign"
)
$ErrorActionPreference = 'Stop'
New-Item -ItemType Directory -Force -Path $ConfigDir | Out-Null
# Only SYSTEM and Administrators may read the config dir (it holds key hashes and the chip file).
icacls $ConfigDir /inheritance:r /grant:r "SYSTEM:(OI)(CI)F" "Administrators:(OI)(CI)F" | Out-Null
[Environment]::SetEnvironmentVariable('LOCALSIGN_HOME', $ConfigDir, 'Machine')
& $Exe init --embedded --home $ConfigDir
New-Service -Name 'localsign' -DisplayName 'localsign local signing service' `
  -BinaryPathName "`"$Exe`" serve --home `"$ConfigDir`"" -StartupType Automatic
Start-Service localsign
