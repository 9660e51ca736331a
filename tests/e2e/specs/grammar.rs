//! The TLA+ grammar (tree-sitter) and where it finds a spec's first syntax error.

use tree_sitter::{Node, Parser};

pub(super) fn tla_parser() -> Parser {
    let mut parser = Parser::new();
    parser
        .set_language(&tree_sitter_tlaplus::LANGUAGE.into())
        .expect("the TLA+ grammar loads");
    parser
}

/// The first ERROR or MISSING node in document order, if the tree has one.
fn first_error(node: Node<'_>) -> Option<Node<'_>> {
    if !node.has_error() {
        return None;
    }
    if node.is_error() || node.is_missing() {
        return Some(node);
    }
    let mut cursor = node.walk();
    let found = node.children(&mut cursor).find_map(first_error);
    found.or(Some(node))
}

/// `None` when `text` parses cleanly, else where and what the first error is.
pub(super) fn syntax_error(parser: &mut Parser, text: &str) -> Option<String> {
    let tree = parser
        .parse(text, None)
        .expect("the parser has a language and no timeout");
    first_error(tree.root_node()).map(|bad| {
        let line = bad.start_position().row + 1;
        if bad.is_missing() {
            format!("line {line}: missing {}", bad.kind())
        } else {
            format!(
                "line {line}: syntax error near {:?}",
                &text[bad.byte_range()].chars().take(40).collect::<String>()
            )
        }
    })
}
