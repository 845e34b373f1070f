use super::*;

fn reply(line: &str) -> Value {
    match classify(line.as_bytes()) {
        Line::Reply(reply) => reply,
        other => panic!("{line}: {other:?}"),
    }
}

fn code_and_id(reply: &Value) -> (i64, Value) {
    (reply["error"]["code"].as_i64().unwrap(), reply["id"].clone())
}

#[test]
fn valid_messages_go_to_the_sdk_and_blank_lines_and_notifications_are_not_answered() {
    for line in [
        r#"{"jsonrpc":"2.0","id":1,"method":"ping"}"#,
        "\u{feff}{\"jsonrpc\":\"2.0\",\"id\":\"a\",\"method\":\"tools/list\"}\r",
        r#"{"jsonrpc":"2.0","method":"notifications/initialized"}"#,
    ] {
        assert!(matches!(classify(line.as_bytes()), Line::Message(_)), "{line}");
    }
    for line in ["", "  \r", r#"{"jsonrpc":"1.0","method":"notifications/x","params":7}"#] {
        assert!(matches!(classify(line.as_bytes()), Line::Nothing), "{line}");
    }
}

#[test]
fn every_malformed_request_is_answered_with_its_id_when_it_has_one() {
    let cases = [
        ("{not json", PARSE_ERROR, Value::Null),
        (r#"{"jsonrpc":"2.0","id":3,"method":"ping""#, PARSE_ERROR, Value::Null),
        ("\u{1}\u{2}", PARSE_ERROR, Value::Null),
        ("42", INVALID_REQUEST, Value::Null),
        (r#""text""#, INVALID_REQUEST, Value::Null),
        ("null", INVALID_REQUEST, Value::Null),
        (r#"{"id":5}"#, INVALID_REQUEST, json!(5)),
        (r#"{"jsonrpc":"1.0","id":"x","method":"ping"}"#, INVALID_REQUEST, json!("x")),
        (r#"{"jsonrpc":"2.0","id":{"a":1},"method":"ping"}"#, INVALID_REQUEST, Value::Null),
        (r#"{"jsonrpc":"2.0","id":null,"method":"ping"}"#, INVALID_REQUEST, Value::Null),
        (r#"{"jsonrpc":"2.0","id":9,"result":7,"error":{}}"#, INVALID_REQUEST, json!(9)),
        (r#"{"jsonrpc":"2.0","id":2.5,"method":7}"#, INVALID_REQUEST, json!(2.5)),
        ("[]", INVALID_REQUEST, Value::Null),
    ];
    for (line, code, id) in cases {
        assert_eq!(code_and_id(&reply(line)), (code, id), "{line}");
    }
}

#[test]
fn a_batch_gets_one_error_per_request_member() {
    let answer = reply(r#"[{"jsonrpc":"2.0","id":1,"method":"ping"},{"jsonrpc":"2.0","method":"n"},3]"#);
    let ids: Vec<Value> = answer.as_array().unwrap().iter().map(|r| r["id"].clone()).collect();
    assert_eq!(ids, [json!(1), Value::Null]);
    assert!(matches!(classify(br#"[{"jsonrpc":"2.0","method":"n"}]"#), Line::Nothing));
}

#[test]
fn the_id_of_a_cut_message_is_found_when_it_comes_first() {
    assert_eq!(sniff_id(br#"{"jsonrpc":"2.0","id":17,"method":"tools/call","params":{"a":"xxxx"#), json!(17));
    assert_eq!(sniff_id(br#"{"params":{"x":[1,2,{"id":3}]},"id":"late","more":"#), json!("late"));
    assert_eq!(sniff_id(br#"{"params":{"x":"xxxxxxxx"#), Value::Null);
    assert_eq!(sniff_id(br#"{"id":{"nested":1},"#), Value::Null);
    assert_eq!(sniff_id(b"[1,2"), Value::Null);
}

/// Drives a transport over in-memory pipes: an oversized line between two
/// valid requests, and an unterminated last line.
#[test]
fn an_oversized_line_is_refused_without_being_kept_and_the_transport_goes_on() {
    let runtime = tokio::runtime::Builder::new_current_thread().build().unwrap();
    runtime.block_on(async {
        let (mut client, server_in) = tokio::io::duplex(64 * 1024);
        let (server_out, mut replies) = tokio::io::duplex(64 * 1024);
        let mut transport = LineTransport::new(server_in, server_out, CancellationToken::new());
        let writer = async move {
            client.write_all(b"{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"ping\"}\n").await.unwrap();
            client
                .write_all(b"{\"jsonrpc\":\"2.0\",\"id\":2,\"method\":\"ping\",\"params\":{\"pad\":\"")
                .await
                .unwrap();
            let chunk = vec![b'x'; 1024 * 1024];
            for _ in 0..17 {
                client.write_all(&chunk).await.unwrap();
            }
            client.write_all(b"\"}}\n{\"jsonrpc\":\"2.0\",\"id\":3,\"method\":\"ping\"}").await.unwrap();
        };
        let reader = async {
            let mut ids = Vec::new();
            while let Some(message) = transport.next_message().await {
                let ClientJsonRpcMessage::Request(request) = message else { panic!("not a request") };
                ids.push(serde_json::to_value(&request.id).unwrap());
                assert!(transport.line.capacity() < MAX_LINE + 8192, "the line buffer stayed bounded");
            }
            ids
        };
        let (ids, ()) = tokio::join!(reader, writer);
        assert_eq!(ids, [json!(1), json!(3)]);
        drop(transport);
        let mut out = String::new();
        tokio::io::AsyncReadExt::read_to_string(&mut replies, &mut out).await.unwrap();
        let reply: Value = serde_json::from_str(out.trim()).unwrap();
        assert_eq!(code_and_id(&reply), (INVALID_REQUEST, json!(2)), "{out}");
    });
}
