@testable import PageProxy
@testable import PageProxyMock
@testable import PageProxyServer
import Testing

/// The JSON layer: syntax errors with positions, exact types, and booleans kept apart from numbers.
@Suite struct ConfigJSONTests {
    @Test func invalidJSONNamesTheFileAndPosition() {
        let json = "{\n  \"listen\": { \"port\": 8080 \n}"
        let error = ConfigFixture.expectError(json, field: "", mentions: ["not valid JSON", "line 3, column 2"])
        #expect(error?.description.hasPrefix("config.json: not valid JSON at line 3") == true)
    }

    @Test(arguments: [
        ("", "empty"),
        ("{\"routes\": [}", "expected a value"),
        ("{\"routes\": []} x", "after the end"),
        ("{'routes': []}", "double quotes"),
        ("{\"a\": 01}", "leading zeros"),
        ("{\"a\": \"tab\there\"}", "control character"),
        ("{\"a\": tru}", "expected true"),
        ("{\"a\": \"\\x\"}", "invalid escape"),
        ("{\"a\": \"unterminated}", "unterminated string"),
        ("{\"a\": 1,}", "double quotes"),
    ])
    func syntaxErrors(json: String, mention: String) {
        ConfigFixture.expectError(json, field: "", mentions: ["not valid JSON", mention])
    }

    @Test func readerDistinguishesEveryKind() throws {
        let value = try ConfigJSONReader.read(Array(#"[true, 1, 1.5, 1e2, -0, null, "\u00e9\ud83d\ude00", {}]"#.utf8))
        #expect(value == .array([.bool(true), .integer(1), .number(1.5), .number(100), .integer(0), .null,
                                 .string("é😀"), .object([])]))
        #expect(try ConfigJSONReader.read(Array("false".utf8)) == .bool(false))
        #expect(try ConfigJSONReader.read(Array("0".utf8)) == .integer(0))
    }

    @Test func topLevelMustBeAnObject() {
        ConfigFixture.expectError("[1]", field: "", mentions: ["expected an object", "an array"])
    }

    @Test func duplicateKeysAreErrors() {
        ConfigFixture.expectError(#"{ "logLevel": "info", "logLevel": "debug", "routes": [] }"#,
                                  field: "logLevel", mentions: ["more than once"])
    }

    @Test func booleanWhereANumberIsExpected() {
        ConfigFixture.expectError(ConfigFixture.document(top: #""listen": { "port": true }"#),
                                  field: "listen.port", mentions: ["expected an integer in 0...65535", "boolean true"])
        ConfigFixture.expectRouteError(extra: #""retries": false"#, field: "retries", mentions: ["boolean false"])
    }

    @Test func numberWhereABooleanIsExpected() {
        ConfigFixture.expectRouteError(extra: #""staleIfError": 1"#, field: "staleIfError",
                                       mentions: ["expected true or false", "integer 1"])
        ConfigFixture.expectRouteError(extra: #""staleIfError": 0"#, field: "staleIfError", mentions: ["integer 0"])
    }

    @Test func stringWhereANumberIsExpected() {
        ConfigFixture.expectError(ConfigFixture.document(top: #""listen": { "port": "8080" }"#),
                                  field: "listen.port", mentions: ["expected an integer", "string \"8080\""])
    }

    @Test func fractionWhereAnIntegerIsExpected() {
        ConfigFixture.expectRouteError(extra: #""concurrency": 1.5"#, field: "concurrency",
                                       mentions: ["expected an integer in 1...64", "number 1.5"])
        ConfigFixture.expectRouteError(extra: #""concurrency": 4.0"#, field: "concurrency", mentions: ["number 4.0"])
    }

    @Test func numberWhereAStringIsExpected() {
        ConfigFixture.expectError(ConfigFixture.document(top: #""logLevel": 1"#),
                                  field: "logLevel", mentions: ["expected a string", "integer 1"])
    }

    @Test func nullWhereAValueIsExpected() {
        ConfigFixture.expectRouteError(extra: #""concurrency": null"#, field: "concurrency", mentions: ["found null"])
    }

    @Test func hugeIntegerIsNotAnInteger() {
        ConfigFixture.expectRouteError(extra: #""maxItems": 99999999999999999999"#, field: "maxItems",
                                       mentions: ["expected an integer"])
    }
}
