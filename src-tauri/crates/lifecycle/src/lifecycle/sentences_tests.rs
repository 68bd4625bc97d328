//! Tests of the sentence and word comparison the review's pairs and merges use.

use super::*;

fn marked(pieces: &[Piece], mark: Mark) -> Vec<&str> {
    pieces
        .iter()
        .filter(|p| p.mark == mark)
        .map(|p| p.text.as_str())
        .collect()
}

fn joined(pieces: &[Piece]) -> String {
    pieces.iter().map(|p| p.text.as_str()).collect()
}

#[test]
fn the_pieces_give_each_text_back_exactly() {
    let a = "# Deploys\n\nTag the release.  Then run `make ship` (from the root)!\n- never on Fridays\n";
    let b = "Tag the release. Run make ship from the repo root.\n\n- Never on Fridays.\n";
    let c = compare(a, b);
    assert_eq!(joined(&c.a), a);
    assert_eq!(joined(&c.b), b);
}

#[test]
fn only_the_words_that_differ_are_marked_never_a_shared_sentence_or_a_whole_line() {
    let a =
        "Tests use real databases, never mocks. Retry a flaky job 3 times before filing a bug.\n";
    let b =
        "Tests use real databases, never mocks. Retry a flaky job 5 times before filing a bug.\n";
    let c = compare(a, b);
    assert_eq!(marked(&c.a, Mark::Word), ["3"]);
    assert_eq!(marked(&c.b, Mark::Word), ["5"]);
    assert!(marked(&c.a, Mark::Sentence).is_empty(), "{c:?}");

    // Two words apart in one sentence are two marks, the space between them unmarked.
    let c = compare(
        "Install with pnpm install at the root.",
        "Install with npm ci at the root.",
    );
    assert_eq!(marked(&c.a, Mark::Word), ["pnpm", "install"]);
    assert_eq!(marked(&c.b, Mark::Word), ["npm", "ci"]);
}

#[test]
fn a_sentence_said_within_a_longer_one_is_not_marked_and_the_longer_ones_extra_words_are() {
    let c = compare(
        "Each test cleans up its own rows.",
        "Each test always cleans up its own rows.",
    );
    assert!(marked(&c.a, Mark::Word).is_empty(), "{c:?}");
    assert_eq!(marked(&c.b, Mark::Word), ["always"]);
}

#[test]
fn a_sentence_with_no_version_in_the_other_is_marked_whole_once() {
    let c = compare(
        "Deploys go out on Tuesdays.\nThe staging database is reset nightly.",
        "Deploys go out on Tuesdays.",
    );
    assert_eq!(
        marked(&c.a, Mark::Sentence),
        ["The staging database is reset nightly."]
    );
    assert!(marked(&c.b, Mark::Sentence).is_empty());
    assert!(marked(&c.b, Mark::Word).is_empty());
}

#[test]
fn case_and_punctuation_around_words_do_not_count_as_a_difference() {
    let c = compare("- Never deploy on Fridays", "never deploy on fridays.");
    assert!(
        c.a.iter().chain(&c.b).all(|p| p.mark == Mark::Same),
        "{c:?}"
    );
}

#[test]
fn a_merge_opens_with_the_kept_body_and_offers_only_the_others_sentences_it_does_not_say() {
    let kept = "Tests use real databases, never mocks. Each test cleans up its own rows.\n";
    let other = "Tests use real databases, never mocks.\nEach test cleans up its own rows.\nRun them with cargo nextest.\n";
    let draft = merge_draft(kept, "How tests are written", other);
    assert_eq!(draft.body, kept);
    assert_eq!(draft.description, "How tests are written");
    let offered: Vec<&str> = draft.differing.iter().map(|d| d.text.as_str()).collect();
    assert_eq!(offered, ["Run them with cargo nextest."]);
    assert_eq!(
        marked(&draft.differing[0].pieces, Mark::Sentence),
        ["Run them with cargo nextest."]
    );
}

#[test]
fn an_offered_sentence_marks_the_words_its_version_in_the_kept_body_lacks() {
    let draft = merge_draft(
        "Deploy with the release workflow on Tuesdays.",
        "",
        "Deploy with the release workflow on Tuesdays and Thursdays.",
    );
    assert_eq!(draft.differing.len(), 1);
    assert_eq!(
        marked(&draft.differing[0].pieces, Mark::Word),
        ["and", "Thursdays"]
    );
    assert_eq!(
        joined(&draft.differing[0].pieces),
        "Deploy with the release workflow on Tuesdays and Thursdays."
    );
}

#[test]
fn the_merged_body_never_repeats_a_sentence_both_have() {
    let kept = "Tests use real databases, never mocks, and each test cleans up its own rows.\n";
    let other =
        "Tests use real databases, never mocks; each test cleans up its own rows.\nUse the shared fixtures.\nUse the shared fixtures.\n";
    let merged = merged_body(kept, other);
    assert_eq!(
        merged,
        "Tests use real databases, never mocks, and each test cleans up its own rows.\nUse the shared fixtures.\n"
    );
    // Merged again with the same text, nothing more comes in.
    assert_eq!(merged_body(&merged, other), merged);
    // Taking in a sentence the body says leaves it as it is.
    assert_eq!(take_in(&merged, "use the shared fixtures"), merged);
}
