import Testing
@testable import AppleSignedData

@Suite("App receipts: base64 and BER measurement")
struct EncodingUnitTests {
    @Test func base64WithWhitespaceDecodesAndAnythingElseOutsideTheAlphabetIsRefused() throws {
        #expect(try ReceiptBase64.decode("aGVs\r\nbG8=", maximumBytes: 100) == Array("hello".utf8))
        #expect(try ReceiptBase64.decode(" aGVsbG8 ", maximumBytes: 100) == Array("hello".utf8))
        #expect(try ReceiptBase64.decode("aGVsbG8", maximumBytes: 100) == Array("hello".utf8))
        for bad in ["aGVs-G8=", "aGVsbG8==", "aGVsbG9=", "a", "=aGVsbG8", "aG=VsbG8"] {
            #expect(throws: AppReceiptVerificationError.self, "\(bad)") { try ReceiptBase64.decode(bad, maximumBytes: 100) }
        }
    }

    @Test func theExtentOfAnElementIsMeasuredInBothLengthForms() throws {
        #expect(try BERExtent.measure([0x05, 0x00, 0xFF], maximumDepth: 4) == 2)
        #expect(try BERExtent.measure([0x30, 0x80, 0x05, 0x00, 0x00, 0x00, 0xFF], maximumDepth: 4) == 6)
        #expect(try BERExtent.measure([0x30, 0x81, 0x02, 0x05, 0x00], maximumDepth: 4) == 5)
        #expect(try BERExtent.measure([0x3F, 0x81, 0x01, 0x00], maximumDepth: 4) == 4)
        #expect(try BERExtent.measure([0x30, 0x80, 0x30, 0x00, 0x00, 0x00], maximumDepth: 2) == 6)
    }

    @Test func eachWayOfBeingBrokenHasItsReason() {
        func reason(_ bytes: [UInt8], depth: Int = 4) -> AppReceiptVerificationError.Reason? {
            do { _ = try BERExtent.measure(bytes[...], maximumDepth: depth); return nil } catch let error as AppReceiptVerificationError { return error.reason } catch { return nil }
        }
        #expect(reason([0x30, 0x05, 0x05, 0x00]) == .truncated)
        #expect(reason([0x30, 0x80, 0x05, 0x00]) == .truncated)
        #expect(reason([0x30, 0x02, 0x04, 0x05, 0x00, 0x00, 0x00, 0x00, 0x00]) == .malformedEncoding)   // child overruns parent
        #expect(reason([0x30, 0x80, 0x30, 0x80, 0x30, 0x80], depth: 2) == .nestingTooDeep)
        #expect(reason([0x04, 0x80, 0x00, 0x00]) == .malformedEncoding)
        #expect(reason([0x30, 0x85, 0x01, 0x01, 0x01, 0x01, 0x01]) == .malformedEncoding)
        #expect(reason([0x1F, 0x81, 0x81, 0x81, 0x81, 0x01, 0x00]) == .malformedEncoding)
        #expect(reason([0x00, 0x00]) == .malformedEncoding)
    }

    @Test func thePayloadReaderTakesDefiniteDEROnlyAndRefusesWhatRunsPastItsEnd() {
        var cursor = DERCursor([0x04, 0x81, 0x02, 0xAA, 0xBB, 0x02, 0x02, 0x00, 0x80][...])
        #expect(cursor.next(0x04) == [0xAA, 0xBB][...])
        #expect(cursor.nextInteger() == 128)
        #expect(cursor.isAtEnd)
        for broken: [UInt8] in [[0x04, 0x03, 0x00], [0x30, 0x80, 0x00, 0x00], [0x1F, 0x81, 0x01, 0x00], [0x04], [0x04, 0x85, 0, 0, 0, 0, 1]] {
            var reader = DERCursor(broken[...])
            #expect(reader.next() == nil, "\(broken)")
        }
        for integer: [UInt8] in [[0x02, 0x02, 0x00, 0x01], [0x02, 0x02, 0xFF, 0x80], [0x02, 0x00], [0x02, 0x09, 1, 2, 3, 4, 5, 6, 7, 8, 9]] {
            var reader = DERCursor(integer[...])
            #expect(reader.nextInteger() == nil, "\(integer)")
        }
        var negative = DERCursor([0x02, 0x01, 0xFF][...])
        #expect(negative.nextInteger() == -1)
    }
}
