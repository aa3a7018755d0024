; localsign Windows installer (NSIS 3, built on Linux by `npm run build:installers` with Debian's
; nsis package). Installs localsign.exe, shawl.exe (the service host) and the chip bridge
; (node_modules\koffi) to Program Files, keeps data in %ProgramData%\localsign, registers and
; starts the service through `localsign.exe service install`, the same code as the CLI, which
; also puts the program's folder on the system PATH (src/install/windows-path.ts; `service
; uninstall` takes it off). Fleets deploy the MSI instead (installers/windows/localsign.wxs).
;
;   localsign-setup.exe                      interactive
;   localsign-setup.exe /S                   silent
;   localsign-setup.exe /S /ENROL=FILE                silent, paired from an enrolment file (fleet):
;                                                     PLATFORM=URL and CODE=CODE lines, copied in,
;                                                     so the code is on no command line
;   localsign-setup.exe /S /PLATFORM=URL /CODE=CODE   silent, paired with the platform
;   localsign-setup.exe /S /PLATFORM=embedded         silent, paired with the embedded platform
;   localsign-setup.exe /S /PORT=8301                 another port (8300 is also Consul's default)
;   "%ProgramFiles%\localsign\uninstall.exe" /S [/PURGE]   silent removal (data kept unless /PURGE)
;
; Defines from build/installers.mjs: VERSION, VERSION4 (a.b.c.d), SRC (staged files), OUTFILE,
; COMPRESSOR (lzma for releases, zlib for tests).

Unicode true
Target amd64-unicode
SetCompressor /SOLID ${COMPRESSOR}
RequestExecutionLevel admin
ManifestSupportedOS all

!include "MUI2.nsh"
!include "FileFunc.nsh"
!include "LogicLib.nsh"
!include "x64.nsh"
!include "WinMessages.nsh"

Name "localsign ${VERSION}"
OutFile "${OUTFILE}"
InstallDir "$PROGRAMFILES64\localsign"
InstallDirRegKey HKLM "Software\localsign" "InstallDir"
BrandingText "localsign ${VERSION}"

VIProductVersion "${VERSION4}"
VIFileVersion "${VERSION4}"
VIAddVersionKey /LANG=1033 "ProductName" "localsign"
VIAddVersionKey /LANG=1033 "FileDescription" "localsign installer"
VIAddVersionKey /LANG=1033 "FileVersion" "${VERSION}"
VIAddVersionKey /LANG=1033 "ProductVersion" "${VERSION}"
VIAddVersionKey /LANG=1033 "CompanyName" "localsign"
VIAddVersionKey /LANG=1033 "LegalCopyright" "localsign contributors"

!define UNINST_KEY "Software\Microsoft\Windows\CurrentVersion\Uninstall\localsign"

!insertmacro MUI_PAGE_DIRECTORY
!insertmacro MUI_PAGE_INSTFILES
!insertmacro MUI_UNPAGE_CONFIRM
!insertmacro MUI_UNPAGE_INSTFILES
!insertmacro MUI_LANGUAGE "English"

Var Platform
Var Code
Var EnrolFile
Var Port
Var PortArg
Var DataDir

Function .onInit
  ${IfNot} ${RunningX64}
    MessageBox MB_ICONSTOP|MB_OK "localsign needs 64-bit Windows." /SD IDOK
    Abort
  ${EndIf}
  SetRegView 64
  SetShellVarContext all
  ${GetParameters} $R0
  ${GetOptions} $R0 "/PLATFORM=" $Platform
  ${GetOptions} $R0 "/CODE=" $Code
  ${GetOptions} $R0 "/ENROL=" $EnrolFile
  ${GetOptions} $R0 "/PORT=" $Port
FunctionEnd

; Runs a console command hidden, its output to the install log (never the enrolment code: it is
; passed in a file). $0 gets the exit code.
!macro Run CMD
  nsExec::ExecToLog '${CMD}'
  Pop $0
!macroend

Section "localsign" SecMain
  SectionIn RO
  StrCpy $DataDir "$APPDATA\localsign"
  ; An upgrade: stop the running service first, so its executable can be replaced; requests it
  ; left PENDING resume when the new one starts (its data dir is not touched).
  ${If} ${FileExists} "$INSTDIR\localsign.exe"
    DetailPrint "Stopping the running localsign service"
    !insertmacro Run '"$INSTDIR\localsign.exe" service stop'
  ${EndIf}

  SetOutPath "$INSTDIR"
  File "${SRC}\localsign.exe"
  File "${SRC}\shawl.exe"
  File "${SRC}\LICENSES.txt"
  SetOutPath "$INSTDIR\node_modules"
  File /r "${SRC}\node_modules\*.*"
  SetOutPath "$INSTDIR"
  WriteUninstaller "$INSTDIR\uninstall.exe"

  WriteRegStr HKLM "Software\localsign" "InstallDir" "$INSTDIR"
  WriteRegStr HKLM "${UNINST_KEY}" "DisplayName" "localsign"
  WriteRegStr HKLM "${UNINST_KEY}" "DisplayVersion" "${VERSION}"
  WriteRegStr HKLM "${UNINST_KEY}" "Publisher" "localsign"
  WriteRegStr HKLM "${UNINST_KEY}" "InstallLocation" "$INSTDIR"
  WriteRegStr HKLM "${UNINST_KEY}" "DisplayIcon" "$INSTDIR\localsign.exe"
  WriteRegStr HKLM "${UNINST_KEY}" "UninstallString" '"$INSTDIR\uninstall.exe"'
  WriteRegStr HKLM "${UNINST_KEY}" "QuietUninstallString" '"$INSTDIR\uninstall.exe" /S'
  WriteRegDWORD HKLM "${UNINST_KEY}" "NoModify" 1
  WriteRegDWORD HKLM "${UNINST_KEY}" "NoRepair" 1

  ; Registers the service (idempotent; creates the data dir with an ACL for SYSTEM and
  ; Administrators and %ProgramData%\localsign\service.json), not started yet. A data dir that
  ; was there before, owned by someone else (a standard user may create folders in
  ; %ProgramData%), is given to Administrators, or the install stops naming it
  ; (src/install/windows-data-dir.ts); a junction in its place is refused.
  DetailPrint "Registering the localsign service"
  ; Without /PORT an upgrade keeps the installed port (service.json), else 8300.
  StrCpy $PortArg ""
  ${If} $Port != ""
    StrCpy $PortArg " --port $Port"
  ${EndIf}
  !insertmacro Run '"$INSTDIR\localsign.exe" service install --no-start$PortArg'
  ${If} $0 != 0
    MessageBox MB_ICONSTOP|MB_OK "Registering the localsign service failed (exit $0): see the details above." /SD IDOK
    SetErrorLevel 2
    Abort
  ${EndIf}

  ; `service install` put localsign on the system PATH: prompts opened from now on see it once
  ; Explorer has heard that the environment changed.
  SendMessage ${HWND_BROADCAST} ${WM_SETTINGCHANGE} 0 "STR:Environment" /TIMEOUT=5000

  ; Fleet enrolment: a file given with /ENROL (copied: it inherits the data dir's ACL), or /PLATFORM
  ; and /CODE written into one, in the data dir (ACL: SYSTEM and Administrators), read once by
  ; `localsign enrol`, which deletes it once paired. Whatever was at that name goes first, so
  ; nothing is written through an entry made before the install.
  ${If} $EnrolFile != ""
  ${OrIf} $Platform != ""
  ${OrIf} $Code != ""
    Delete "$DataDir\enrol"
    ${If} $EnrolFile != ""
      ClearErrors
      CopyFiles /SILENT "$EnrolFile" "$DataDir\enrol"
      ${If} ${Errors}
        DetailPrint "Pairing failed: cannot copy the enrolment file $EnrolFile"
        SetErrorLevel 3
      ${EndIf}
    ${Else}
      ${If} $Platform == ""
        StrCpy $Platform "embedded"
      ${EndIf}
      FileOpen $1 "$DataDir\enrol" w
      FileWrite $1 "PLATFORM=$Platform$\r$\nCODE=$Code$\r$\n"
      FileClose $1
    ${EndIf}
    StrCpy $Code ""
    ${If} ${FileExists} "$DataDir\enrol"
      DetailPrint "Pairing this machine"
      !insertmacro Run '"$INSTDIR\localsign.exe" enrol --file "$DataDir\enrol"'
      ${If} $0 != 0
        DetailPrint "Pairing failed: the enrolment file is kept; retry with localsign enrol --file $DataDir\enrol"
        SetErrorLevel 3
      ${EndIf}
    ${EndIf}
  ${EndIf}

  DetailPrint "Starting the localsign service"
  !insertmacro Run '"$INSTDIR\localsign.exe" service start'
  ${If} $0 != 0
    DetailPrint "The localsign service did not start (exit $0): see $DataDir\service.log"
    SetErrorLevel 4
  ${EndIf}
SectionEnd

Function un.onInit
  SetRegView 64
  SetShellVarContext all
FunctionEnd

Section "Uninstall"
  ${GetParameters} $R0
  ClearErrors
  ${GetOptions} $R0 "/PURGE" $R1
  ${If} ${Errors}
    !insertmacro Run '"$INSTDIR\localsign.exe" service uninstall'
  ${Else}
    !insertmacro Run '"$INSTDIR\localsign.exe" service uninstall --purge'
  ${EndIf}
  ; `service uninstall` took localsign off the system PATH.
  SendMessage ${HWND_BROADCAST} ${WM_SETTINGCHANGE} 0 "STR:Environment" /TIMEOUT=5000
  Delete "$INSTDIR\localsign.exe"
  Delete "$INSTDIR\shawl.exe"
  Delete "$INSTDIR\LICENSES.txt"
  RMDir /r "$INSTDIR\node_modules"
  Delete "$INSTDIR\uninstall.exe"
  RMDir "$INSTDIR"
  DeleteRegKey HKLM "${UNINST_KEY}"
  DeleteRegKey HKLM "Software\localsign"
SectionEnd
