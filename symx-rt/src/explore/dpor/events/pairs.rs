//! A map with tuple keys as a list of pairs (JSON keys are strings), in key order so that a
//! checkpoint's text does not depend on the hasher.

use super::HashMap;
use serde::{Deserialize, Deserializer, Serialize, Serializer};
use std::hash::Hash;

pub fn serialize<K, V, S>(map: &HashMap<K, V>, s: S) -> Result<S::Ok, S::Error>
where
    K: Serialize + Ord,
    V: Serialize,
    S: Serializer,
{
    let mut pairs: Vec<(&K, &V)> = map.iter().collect();
    pairs.sort_unstable_by(|a, b| a.0.cmp(b.0));
    pairs.serialize(s)
}

pub fn deserialize<'de, K, V, D>(d: D) -> Result<HashMap<K, V>, D::Error>
where
    K: Deserialize<'de> + Eq + Hash,
    V: Deserialize<'de>,
    D: Deserializer<'de>,
{
    Ok(Vec::<(K, V)>::deserialize(d)?.into_iter().collect())
}
