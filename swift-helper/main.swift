// rea-token-reader: a narrow, read-only process inspector for rea on macOS.
//
// Usage: rea-token-reader PID...
//
// For each PID it prints, in the order given, the process's start identity
// (proc_pidinfo PROC_PIDTBSDINFO start time, plus p_uniqueid from
// PROC_PIDUNIQIDENTIFIERINFO where the kernel provides it) and the value of
// REA_PROCESS_RUN_ID from its environment (sysctl KERN_PROCARGS2), or a
// per-PID error. The identity is read before and after the environment; a
// change means the PID was reused during the read and is reported as gone.
// It reads nothing else, writes nothing but its standard output, and never
// signals. The output format is documented in README.md (version 1).

import Darwin

let header = "rea-token-reader 1"
let tokenPrefix = Array("REA_PROCESS_RUN_ID=".utf8)

enum Failure: String {
    case gone = "gone"
    case permissionDenied = "permission-denied"
    case malformedArguments = "malformed-arguments"
}

struct Identity: Equatable {
    var seconds: UInt64
    var micros: UInt64
    var unique: UInt64?
}

func hex<C: Collection>(_ bytes: C) -> String where C.Element == UInt8 {
    let digits = Array("0123456789abcdef".utf8)
    var out: [UInt8] = []
    out.reserveCapacity(bytes.count * 2)
    for byte in bytes {
        out.append(digits[Int(byte >> 4)])
        out.append(digits[Int(byte & 0x0f)])
    }
    return String(decoding: out, as: UTF8.self)
}

func sixDigits(_ value: UInt64) -> String {
    let text = String(value)
    return String(repeating: "0", count: max(0, 6 - text.count)) + text
}

func exists(_ pid: pid_t) -> Bool {
    return kill(pid, 0) == 0 || errno == EPERM
}

func identity(_ pid: pid_t) -> Result<Identity, Failure> {
    var info = proc_bsdinfo()
    let size = Int32(MemoryLayout<proc_bsdinfo>.stride)
    errno = 0
    let read = proc_pidinfo(pid, PROC_PIDTBSDINFO, 0, &info, size)
    if read != size {
        let code = errno
        if code == EPERM || code == EACCES { return .failure(.permissionDenied) }
        return .failure(.gone)
    }
    var unique: UInt64? = nil
    var ids = proc_uniqidentifierinfo()
    let idsSize = Int32(MemoryLayout<proc_uniqidentifierinfo>.stride)
    if proc_pidinfo(pid, PROC_PIDUNIQIDENTIFIERINFO, 0, &ids, idsSize) == idsSize {
        unique = ids.p_uniqueid
    }
    return .success(Identity(seconds: info.pbi_start_tvsec, micros: info.pbi_start_tvusec, unique: unique))
}

func argumentsArea(_ pid: pid_t) -> Result<[UInt8], Failure> {
    var argmax: Int32 = 0
    var argmaxSize = MemoryLayout<Int32>.size
    var argmaxMib: [Int32] = [CTL_KERN, KERN_ARGMAX]
    if sysctl(&argmaxMib, 2, &argmax, &argmaxSize, nil, 0) != 0 || argmax <= 0 {
        return .failure(.malformedArguments)
    }
    var buffer = [UInt8](repeating: 0, count: Int(argmax))
    var size = buffer.count
    var mib: [Int32] = [CTL_KERN, KERN_PROCARGS2, pid]
    if sysctl(&mib, 3, &buffer, &size, nil, 0) != 0 {
        let code = errno
        if code == ESRCH { return .failure(.gone) }
        // The kernel answers EINVAL both for a process that is gone and for
        // one whose arguments it will not show (another user's, a zombie).
        if code == EPERM || code == EACCES || exists(pid) { return .failure(.permissionDenied) }
        return .failure(.gone)
    }
    return .success(Array(buffer[0..<size]))
}

/// The token's value from a KERN_PROCARGS2 area: argc (int32), the exec
/// path, NUL padding, argc arguments, then NUL-terminated environment
/// entries up to an empty one or the end of the area.
func token(in area: [UInt8]) -> Result<[UInt8]?, Failure> {
    if area.count < 4 { return .failure(.malformedArguments) }
    let argc = area.withUnsafeBytes { $0.loadUnaligned(fromByteOffset: 0, as: Int32.self) }
    if argc < 0 { return .failure(.malformedArguments) }
    var position = 4
    func skipString() -> Bool {
        guard let end = area[position...].firstIndex(of: 0) else { return false }
        position = end + 1
        return true
    }
    if !skipString() { return .failure(.malformedArguments) }
    while position < area.count && area[position] == 0 { position += 1 }
    for _ in 0..<argc {
        if position >= area.count || !skipString() { return .failure(.malformedArguments) }
    }
    while position < area.count {
        let end = area[position...].firstIndex(of: 0) ?? area.count
        if end == position { break }
        let entry = area[position..<end]
        if entry.starts(with: tokenPrefix) {
            return .success(Array(entry.dropFirst(tokenPrefix.count)))
        }
        position = end + 1
    }
    return .success(nil)
}

func describe(_ pid: pid_t) -> String {
    let before: Identity
    switch identity(pid) {
    case .failure(let f): return "error \(pid) \(f.rawValue)"
    case .success(let i): before = i
    }
    let found: [UInt8]?
    switch argumentsArea(pid).flatMap(token(in:)) {
    case .failure(let f): return "error \(pid) \(f.rawValue)"
    case .success(let t): found = t
    }
    guard case .success(let after) = identity(pid), after == before else {
        return "error \(pid) gone"
    }
    let unique = after.unique.map { String($0) } ?? "-"
    let start = "\(after.seconds).\(sixDigits(after.micros))"
    let tail = found.map { "token " + hex($0) } ?? "no-token"
    return "process \(pid) start \(start) unique \(unique) \(tail)"
}

var pids: [pid_t] = []
for argument in CommandLine.arguments.dropFirst() {
    guard let pid = pid_t(argument), pid > 0 else {
        fputs("rea-token-reader: not a PID: \(argument)\n", stderr)
        exit(2)
    }
    pids.append(pid)
}
print(header)
for pid in pids {
    print(describe(pid))
}
print("done \(pids.count)")
