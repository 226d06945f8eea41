//! The connection to one remote, replaceable: a remote that went away is marked unavailable
//! (its entries stay registered, and using one is an error naming the remote and why), and a
//! new connection to it (a restarted upstream) takes its place under the same entries.

use crate::client::Client;
use crate::error::{Error, ErrorKind, Result};
use std::sync::RwLock;

/// The current connection to one remote.
#[derive(Debug)]
pub(crate) struct Link {
    server: String,
    state: RwLock<State>,
}

#[derive(Debug)]
enum State {
    Up(Client),
    Down(String),
}

impl Link {
    /// A link to `server` over `client`.
    pub(crate) fn new(server: &str, client: Client) -> Link {
        Link { server: server.to_owned(), state: RwLock::new(State::Up(client)) }
    }

    /// The connection, or an error naming the remote and saying why it is unavailable.
    pub(crate) fn client(&self) -> Result<Client> {
        match &*self.state.read().expect("lock") {
            State::Up(c) => Ok(c.clone()),
            State::Down(why) => Err(Error::new(
                ErrorKind::Closed,
                format!("remote server {:?} is unavailable: {why}", self.server),
            )),
        }
    }

    /// The connection, when there is one.
    pub(crate) fn current(&self) -> Option<Client> {
        self.client().ok()
    }

    /// From now on, `client` serves this remote.
    pub(crate) fn set(&self, client: Client) {
        *self.state.write().expect("lock") = State::Up(client);
    }

    /// Marks the remote unavailable; returns the connection it had.
    pub(crate) fn down(&self, why: &str) -> Option<Client> {
        match std::mem::replace(&mut *self.state.write().expect("lock"), State::Down(why.to_owned())) {
            State::Up(c) => Some(c),
            State::Down(_) => None,
        }
    }
}
