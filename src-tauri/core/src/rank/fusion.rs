//! Combining lexical and semantic evidence (DESIGN §4).
//!
//! Owns: `blend` (bm25 × (1 − w) + cosine × w, both normalized so their best is 1.0) and
//! reciprocal rank fusion.
//!
//! Why cosine is normalized too: MiniLM cosines of a relevant and an unrelated memory differ by
//! a few tenths, while normalized bm25 spans 0..1, so raw cosine let any accidental word match
//! outweigh a strong semantic match (eval: paraphrase Hit@3 0.72 raw vs 0.89 normalized at w 0.6).
//! Deliberately does not: compute either input.

/// Scales scores so the best is 1.0 (all zeros stay zeros).
pub fn normalize(scores: &mut [f32]) {
    let top = scores.iter().cloned().fold(0.0f32, f32::max);
    if top > 0.0 {
        for s in scores.iter_mut() {
            *s /= top;
        }
    }
}

/// Both sides normalized to a best of 1.0; cosine clamped at 0 (a negative similarity is no
/// evidence) and a missing vector counts as 0.
pub fn blend(lexical: &[f32], cosine: &[Option<f32>], semantic_weight: f32) -> Vec<f32> {
    let mut lex = lexical.to_vec();
    normalize(&mut lex);
    let mut cos: Vec<f32> = cosine.iter().map(|c| c.unwrap_or(0.0).max(0.0)).collect();
    normalize(&mut cos);
    lex.iter().zip(&cos).map(|(l, c)| l * (1.0 - semantic_weight) + c * semantic_weight).collect()
}

/// Reciprocal rank fusion with constant `k` (60 in DESIGN): Σ 1 / (k + rank) over the lists a
/// document appears in with a positive score.
pub fn rrf(lists: &[Vec<f32>], k: f32) -> Vec<f32> {
    let n = lists.first().map_or(0, Vec::len);
    let mut fused = vec![0.0f32; n];
    for scores in lists {
        let mut order: Vec<usize> = (0..n).filter(|i| scores[*i] > 0.0).collect();
        order.sort_by(|a, b| scores[*b].total_cmp(&scores[*a]));
        for (rank, doc) in order.into_iter().enumerate() {
            fused[doc] += 1.0 / (k + rank as f32 + 1.0);
        }
    }
    fused
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn blend_weights_both_sides() {
        let fused = blend(&[2.0, 1.0, 0.0], &[Some(0.0), Some(0.5), None], 0.4);
        assert!((fused[0] - 0.6).abs() < 1e-6);
        assert!((fused[1] - (0.5 * 0.6 + 0.4)).abs() < 1e-6, "cosine 0.5 is the best, so it counts as 1.0");
        assert_eq!(fused[2], 0.0);
    }

    #[test]
    fn rrf_rewards_agreement() {
        // doc0: first in one list only; doc1: second and first; doc2: third and second.
        let fused = rrf(&[vec![3.0, 2.0, 1.0], vec![0.0, 3.0, 1.0]], 60.0);
        assert!(fused[1] > fused[2], "{fused:?}");
        assert!(fused[2] > fused[0], "appearing in both lists beats topping one: {fused:?}");
    }
}
