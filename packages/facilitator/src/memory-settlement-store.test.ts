import { describeSettlementStoreContract } from '../test/settlement-store-contract.js'
import { createMemorySettlementStore } from './memory-settlement-store.js'

describeSettlementStoreContract('createMemorySettlementStore', async () => createMemorySettlementStore())
