pub struct Ticket;

impl Ticket {
    #[symx::try_acquire]
    pub fn redeem(self) -> bool {
        true
    }
}

fn main() {
    Ticket.redeem();
}
