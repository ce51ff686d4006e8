//! String formats, each a fixed set of rules (its first rule is the quoted string).
//!
//! Dates keep to the days each month always has (February to 28), times to seconds below 60,
//! so that every validator that checks a calendar accepts them. E-mail addresses, IPv4
//! addresses and URIs are narrow, common forms: host names are labels of letters and digits
//! joined by single hyphens (`--` at a label's third character is reserved for IDNA) under an
//! alphabetic top-level domain.

use shoal_protocol::schema::StringFormat;

use super::rules::Rules;

const DATE: &str = r#"fmt-date ::= "\"" fmt-date-body "\""
fmt-date-body ::= [1-9] [0-9]{3} "-" ( ( "01" | "03" | "05" | "07" | "08" | "10" | "12" ) "-" ( fmt-day-28 | "29" | "30" | "31" ) | ( "04" | "06" | "09" | "11" ) "-" ( fmt-day-28 | "29" | "30" ) | "02" "-" fmt-day-28 )
fmt-day-28 ::= "0" [1-9] | "1" [0-9] | "2" [0-8]
"#;

const TIME: &str = r#"fmt-time ::= "\"" fmt-time-body "\""
fmt-time-body ::= ( [01] [0-9] | "2" [0-3] ) ":" [0-5] [0-9] ":" [0-5] [0-9] ( "." [0-9]{1,6} )? ( "Z" | [+-] ( [01] [0-9] | "2" [0-3] ) ":" [0-5] [0-9] )
"#;

const DATE_TIME: &str = r#"fmt-date-time ::= "\"" fmt-date-body "T" fmt-time-body "\""
"#;

const UUID: &str = r#"fmt-uuid ::= "\"" fmt-hex{8} "-" fmt-hex{4} "-" fmt-hex{4} "-" fmt-hex{4} "-" fmt-hex{12} "\""
fmt-hex ::= [0-9a-f]
"#;

const EMAIL: &str = r#"fmt-email ::= "\"" fmt-atom ( "." fmt-atom ){0,3} "@" fmt-domain "\""
fmt-atom ::= [a-zA-Z0-9_+-]{1,32}
fmt-domain ::= fmt-label ( "." fmt-label ){0,3} "." [a-zA-Z]{2,8}
fmt-label ::= [a-zA-Z0-9]{1,20} ( "-" [a-zA-Z0-9]{1,20} ){0,2}
"#;

const IPV4: &str = r#"fmt-ipv4 ::= "\"" fmt-octet "." fmt-octet "." fmt-octet "." fmt-octet "\""
fmt-octet ::= [0-9] | [1-9] [0-9] | "1" [0-9]{2} | "2" [0-4] [0-9] | "25" [0-5]
"#;

const URI: &str = r#"fmt-uri ::= "\"" ( "https" | "http" ) "://" fmt-domain ( "/" fmt-path-char{0,64} )? "\""
fmt-path-char ::= [a-zA-Z0-9._~/-] | "%" [0-9A-F]{2}
fmt-domain ::= fmt-label ( "." fmt-label ){0,3} "." [a-zA-Z]{2,8}
fmt-label ::= [a-zA-Z0-9]{1,20} ( "-" [a-zA-Z0-9]{1,20} ){0,2}
"#;

/// The rule for a string of `format`, adding its rules to `rules` the first time.
pub(super) fn rule(rules: &mut Rules, format: StringFormat) -> &'static str {
    match format {
        StringFormat::Date => rules.add_fixed("fmt-date", DATE),
        StringFormat::Time => rules.add_fixed("fmt-time", TIME),
        StringFormat::DateTime => {
            rules.add_fixed("fmt-date", DATE);
            rules.add_fixed("fmt-time", TIME);
            rules.add_fixed("fmt-date-time", DATE_TIME)
        }
        StringFormat::Uuid => rules.add_fixed("fmt-uuid", UUID),
        StringFormat::Email => rules.add_fixed("fmt-email", EMAIL),
        StringFormat::Ipv4 => rules.add_fixed("fmt-ipv4", IPV4),
        StringFormat::Uri => rules.add_fixed("fmt-uri", URI),
    }
}
