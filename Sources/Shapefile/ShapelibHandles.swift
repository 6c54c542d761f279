internal import CShapelib

/// Owns an open `SHPHandle`; closes it once.
final class SHPHandleOwner {
    let handle: SHPHandle
    init(_ handle: SHPHandle) { self.handle = handle }
    deinit { SHPClose(handle) }
}

/// Owns an open `DBFHandle`; closes it once.
final class DBFHandleOwner {
    let handle: DBFHandle
    init(_ handle: DBFHandle) { self.handle = handle }
    deinit { DBFClose(handle) }
}

/// Owns one `SHPObject` for the duration of a record; destroyed when it goes out of scope.
struct SHPObjectOwner: ~Copyable {
    let object: UnsafeMutablePointer<SHPObject>
    init(_ object: UnsafeMutablePointer<SHPObject>) { self.object = object }
    deinit { SHPDestroyObject(object) }
}
