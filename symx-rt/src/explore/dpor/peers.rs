//! One explorer's dealings with the others of a split exploration (the scheme and its
//! argument are in [`split`]): handing half of its work to an idle explorer,
//! taking work, forwarding the reversals it plants at nodes another explorer owns, planting
//! the ones forwarded to it, and keeping its lent nodes after their pop so that forwarded
//! reversals always find them.

use std::rc::Rc;

use rustc_hash::{FxHashMap as HashMap, FxHashSet as HashSet};
use smallvec::SmallVec;

use super::events::{Access, Ev, Evidence, Fair, Names};
use super::exchange::{Exchange, Wake};
use super::split::{Key, Place};
use super::wakeup::Tree;
use super::{split, Dpor, Node};

/// A node as every explorer names it: (the explorer that owns it, its number there).
pub(crate) type Home = (u32, u64);

/// This explorer's side of a split exploration.
pub(crate) struct Peers {
    pub exchange: Exchange,
    /// Numbers this explorer's nodes (how the others name them).
    next_id: u64,
    /// This explorer's nodes that were lent (on the path of a gift) and then popped: a
    /// reversal may still be forwarded to them. Kept until the exploration ends.
    retired: HashMap<u64, Node>,
    /// Retired nodes that forwarded reversals gave work, to explore again.
    ready: Vec<u64>,
    /// Reversals planted at other explorers' nodes, not sent yet, each with the place of the
    /// child whose exploration found it (`None`: found below that node's current child).
    outbox: Vec<(Home, Option<Key>, Vec<Ev>)>,
    /// The reversals forwarded since this explorer last took work, each sent only once (see
    /// [`Dpor::forward`]).
    forwarded: HashSet<(Home, Option<Key>, Vec<Sent>)>,
    /// A hash of each execution's trace (`HappensBefore::trace_hash`), left in the exchange
    /// when the exploration is over: the driver counts the traces two explorers ran.
    pub traces: Vec<u64>,
}

/// The path to a lent node when it was first lent (every node of a gift's path shares one):
/// its first `depth` nodes, as copies that send what is planted at them to their owners.
#[derive(Clone)]
pub(crate) struct Lent {
    path: Rc<Vec<Node>>,
    depth: usize,
}

/// What of an event a reversal's owner sees (thread, index, accesses by their objects' roots,
/// enablers, fairness access): two reversals equal in these are planted alike.
type Sent = (
    usize,
    u32,
    SmallVec<[Access; 3]>,
    SmallVec<[(usize, u32); 2]>,
    Fair,
);

fn sent(ev: &Ev, names: &mut Names) -> Sent {
    let accesses = ev.accesses.iter().map(|a| a.renamed(|c| names.find(c)));
    let enablers = ev.enablers.clone();
    (ev.thread, ev.index, accesses.collect(), enablers, ev.fair)
}

/// Work handed to an idle explorer: a path whose wakeup trees hold the given items.
#[derive(serde::Serialize, serde::Deserialize)]
struct Gift {
    evidence: Evidence,
    nodes: Vec<Node>,
}

/// A reversal forwarded to a node's owner: (its node, the place of the child whose
/// exploration found it, the sequence to insert there).
type Plant = (u64, Option<Key>, Vec<Ev>);

/// Reversals forwarded to one explorer.
#[derive(serde::Serialize, serde::Deserialize)]
struct Plants {
    evidence: Evidence,
    plants: Vec<Plant>,
}

impl Peers {
    pub fn new(exchange: Exchange) -> Peers {
        Peers {
            exchange,
            next_id: 1,
            retired: HashMap::default(),
            ready: Vec::new(),
            outbox: Vec::new(),
            forwarded: HashSet::default(),
            traces: Vec::new(),
        }
    }

    pub fn fresh_id(&mut self) -> u64 {
        self.next_id += 1;
        self.next_id
    }

    /// Keeps `node`, just popped, if it is this explorer's and was lent.
    pub fn retire(&mut self, node: Node) {
        if node.home.is_none() && node.lent.is_some() {
            self.retired.insert(node.id, node);
        }
    }
}

impl Node {
    /// The copy of this node that goes into a gift or a lent path: it sends what is planted
    /// at it to the node's owner, and offers no work of its own.
    fn proxy(&self, me: u32) -> Node {
        Node {
            chosen: self.chosen.clone(),
            sleep: self.sleep.clone(),
            wut: Tree::default(),
            values: self.values.clone(),
            done: self.done,
            room: self.room,
            values_elsewhere: true,
            id: 0,
            home: self.home.or(Some((me, self.id))),
            lent: None,
            below: Tree::default(),
            key: self.key.clone(),
            // Only their order matters in a copy (the owner places what is planted there).
            places: (self.places.iter())
                .map(|(key, _)| (key.clone(), Tree::default()))
                .collect(),
            next_key: 0,
        }
    }

    /// Every event the node holds.
    fn events_mut(&mut self, f: &mut impl FnMut(&mut Ev)) {
        f(&mut self.chosen);
        self.sleep.iter_mut().for_each(&mut *f);
        tree_events_mut(&mut self.wut, f);
    }
}

fn tree_events_mut(tree: &mut Tree, f: &mut impl FnMut(&mut Ev)) {
    for (ev, below) in tree.children.iter_mut() {
        f(ev);
        tree_events_mut(below, f);
    }
}

impl Dpor {
    /// Explorer `index` of `count` of an exploration split among several, exchanging work in
    /// directory `dir` (see [`split`]).
    pub fn split(dir: &std::path::Path, index: u32, count: u32) -> Self {
        Dpor {
            peers: Some(Peers::new(Exchange::new(dir, index, count))),
            ..Dpor::default()
        }
    }

    /// Between two executions of a busy explorer, now and then: sends the forwarded
    /// reversals, plants the ones forwarded to it, and gives work to an idle explorer.
    pub(super) fn meet_peers(&mut self) {
        let Some(peers) = &mut self.peers else {
            return;
        };
        if !peers.exchange.due() {
            return;
        }
        self.send_plants();
        let texts = self.peers.as_mut().expect("checked").exchange.receive();
        for text in texts {
            self.receive_plants(&text);
        }
        if split::has_two_items(&self.nodes) {
            self.give_work();
        } else if let Some(peers) = &mut self.peers {
            peers.exchange.refuse();
        }
    }

    /// Hands half of the unexplored items to an idle explorer, if one waits.
    fn give_work(&mut self) {
        let peers = self.peers.as_mut().expect("split");
        let Some(to) = peers.exchange.claim_request() else {
            return;
        };
        let me = peers.exchange.index();
        let given = split::give_half(&mut self.nodes).unwrap_or_default();
        let path: Vec<Node> = self.nodes[..given.len()]
            .iter()
            .map(|n| n.proxy(me))
            .collect();
        // Reversals may be forwarded to these nodes for as long as the gift is explored.
        let shared = Rc::new(path.clone());
        for (depth, node) in self.nodes[..given.len()].iter_mut().enumerate() {
            if node.home.is_none() && node.lent.is_none() {
                node.lent = Some(Lent {
                    path: shared.clone(),
                    depth,
                });
            }
        }
        let mut nodes: Vec<Node> = path
            .into_iter()
            .zip(given)
            .zip(&self.nodes)
            .map(|((n, (wut, values)), mine)| {
                let mut copy = Node {
                    wut,
                    values_elsewhere: !values,
                    ..n
                };
                copy.sleep_before_given(mine);
                copy
            })
            .collect();
        let names = &mut self.names;
        for node in nodes.iter_mut() {
            node.events_mut(&mut |ev| *ev = names.export(ev));
        }
        let gift = Gift {
            evidence: self.names.evidence(self.threads.keys(), None),
            nodes,
        };
        let text = crate::json::to_string(&gift).expect("a gift is JSON");
        let peers = self.peers.as_mut().expect("split");
        peers.exchange.give(to, &text);
        peers.exchange.tally.gifts_given += 1;
    }

    /// Takes the next part to explore: a retired node that forwarded reversals gave work, or
    /// work from another explorer (waiting for it, planting what is forwarded meanwhile);
    /// `false` when the exploration is over.
    pub(super) fn take_work(&mut self) -> bool {
        if self.peers.is_none() {
            return false;
        }
        loop {
            self.send_plants();
            if self.resume() {
                return true;
            }
            let peers = self.peers.as_mut().expect("split");
            match peers.exchange.wait() {
                Wake::Over => {
                    peers.exchange.leave_traces(&peers.traces);
                    peers.exchange.leave_tally(self.executions);
                    return false;
                }
                Wake::Messages(texts) => {
                    for text in texts {
                        self.receive_plants(&text);
                    }
                }
                Wake::Work(text) => {
                    // The reversals sent so far were for the last gift's path (memory bound).
                    peers.forwarded.clear();
                    let gift: Gift = crate::json::from_str(&text).expect("a gift from a shard");
                    let threads = &mut self.threads;
                    let to_mine = self.names.absorb(&gift.evidence, &mut |k| threads.of(k));
                    self.nodes = gift.nodes;
                    for node in self.nodes.iter_mut() {
                        node.events_mut(&mut |ev| to_mine.apply(ev));
                    }
                    self.pending = Tree::default();
                    return true;
                }
            }
        }
    }

    /// Makes a ready retired node the end of the current path again (its path as copies that
    /// forward to their owners); `false` when none is ready.
    fn resume(&mut self) -> bool {
        let peers = self.peers.as_mut().expect("split");
        while let Some(id) = peers.ready.pop() {
            let Some(node) = peers.retired.remove(&id) else {
                continue;
            };
            if !node.wut.has_own_leaf() {
                peers.retired.insert(id, node);
                continue;
            }
            let lent = node.lent.clone().expect("a retired node was lent");
            // Its event went to sleep when it was popped, with its place: `advance` finds it
            // there (and the shadows it passed) and goes on with the new children.
            self.nodes = lent.path[..lent.depth].to_vec();
            self.nodes.push(node);
            self.pending = Tree::default();
            return true;
        }
        false
    }

    /// Plants `v`, found while exploring the child at `from` of node `home`, at that node:
    /// here if this explorer owns it, else by a message to its owner, unless an equal one was
    /// sent already. The owner plants what was found below `from` as the sequential algorithm
    /// would during `from`'s exploration, when the node's wakeup tree and sleep set only grow:
    /// planting a sequence again then adds nothing (the first one is there, or what covered it
    /// still does). Most races below a gift reverse into the same few sequences above it (on
    /// the counters, nearly one per execution, every one of them covered at the owner), so
    /// sending each once spares both explorers most of the traffic.
    pub(super) fn forward(&mut self, home: Home, from: Option<Key>, v: Vec<Ev>) {
        let peers = self
            .peers
            .as_mut()
            .expect("only a split exploration has copies");
        if home.0 == peers.exchange.index() {
            return self.plant_at(home.1, from, v);
        }
        let seen = v.iter().map(|ev| sent(ev, &mut self.names)).collect();
        if peers.forwarded.insert((home, from.clone(), seen)) {
            peers.outbox.push((home, from, v));
        }
    }

    /// Plants `v`, found while exploring the child at `from`, at this explorer's node `id`:
    /// on the current path as if planted there, at a retired node into its wakeup tree (which
    /// makes it ready to explore again if that gave it work).
    fn plant_at(&mut self, id: u64, from: Option<Key>, mut v: Vec<Ev>) {
        let live = self
            .nodes
            .iter()
            .position(|n| n.home.is_none() && n.id == id);
        if let Some(k) = live {
            return self.plant(k, v, from);
        }
        let peers = self.peers.as_mut().expect("split");
        let node = peers
            .retired
            .get_mut(&id)
            .unwrap_or_else(|| panic!("symx: a reversal for node {id}, which is gone"));
        let place = node.place(from.as_ref(), false, &mut v, &mut self.names);
        if matches!(place, Place::Covered) {
            return;
        }
        node.plant(place, v, &mut self.names);
        if node.wut.has_own_leaf() && !peers.ready.contains(&id) {
            peers.ready.push(id);
        }
    }

    /// Sends the forwarded reversals, one message per explorer.
    fn send_plants(&mut self) {
        let peers = self.peers.as_mut().expect("split");
        if peers.outbox.is_empty() {
            return;
        }
        let mut by_owner: HashMap<u32, Vec<Plant>> = HashMap::default();
        for ((owner, id), from, v) in std::mem::take(&mut peers.outbox) {
            let v = v.iter().map(|ev| self.names.export(ev)).collect();
            by_owner.entry(owner).or_default().push((id, from, v));
        }
        let mut owners: Vec<_> = by_owner.into_iter().collect();
        owners.sort_unstable_by_key(|o| o.0);
        for (owner, plants) in owners {
            let at: Vec<_> = plants
                .iter()
                .flat_map(|(_, _, v)| v.iter().map(|ev| (ev.thread, ev.index)))
                .collect();
            let evidence = self.names.evidence(self.threads.keys(), Some(&at));
            let text =
                crate::json::to_string(&Plants { evidence, plants }).expect("plants are JSON");
            let peers = self.peers.as_mut().expect("split");
            peers.exchange.send(owner, &text);
        }
    }

    /// Plants the reversals another explorer forwarded to this one.
    fn receive_plants(&mut self, text: &str) {
        let message: Plants = crate::json::from_str(text).expect("plants from a shard");
        let threads = &mut self.threads;
        let to_mine = self.names.absorb(&message.evidence, &mut |k| threads.of(k));
        for (id, from, mut v) in message.plants {
            v.iter_mut().for_each(|ev| to_mine.apply(ev));
            self.plant_at(id, from, v);
        }
    }
}
