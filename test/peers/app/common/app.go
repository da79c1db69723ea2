// A minimal Cosmos SDK chain of our own (auth, bank, staking, distribution, gov, consensus, upgrade, genutil;
// epochs from v0.53 on), wired with depinject as the SDK's own small app configs are. The same source builds
// against each SDK line (test/peers/README.md): this file and root.go are shared, and each line's folder adds
// line.go with what differs there (import paths, the modules the line adds, its upgrade handlers).
package main

import (
	"errors"
	"os"
	"path/filepath"

	runtimev1alpha1 "cosmossdk.io/api/cosmos/app/runtime/v1alpha1"
	appv1alpha1 "cosmossdk.io/api/cosmos/app/v1alpha1"
	authmodulev1 "cosmossdk.io/api/cosmos/auth/module/v1"
	bankmodulev1 "cosmossdk.io/api/cosmos/bank/module/v1"
	consensusmodulev1 "cosmossdk.io/api/cosmos/consensus/module/v1"
	distrmodulev1 "cosmossdk.io/api/cosmos/distribution/module/v1"
	genutilmodulev1 "cosmossdk.io/api/cosmos/genutil/module/v1"
	govmodulev1 "cosmossdk.io/api/cosmos/gov/module/v1"
	stakingmodulev1 "cosmossdk.io/api/cosmos/staking/module/v1"
	txconfigv1 "cosmossdk.io/api/cosmos/tx/config/v1"
	upgrademodulev1 "cosmossdk.io/api/cosmos/upgrade/module/v1"
	"cosmossdk.io/core/appconfig"
	"cosmossdk.io/depinject"

	"github.com/cosmos/cosmos-sdk/runtime"
	servertypes "github.com/cosmos/cosmos-sdk/server/types"
	"github.com/cosmos/cosmos-sdk/types/module"
	_ "github.com/cosmos/cosmos-sdk/x/auth" // modules register their depinject providers on import
	_ "github.com/cosmos/cosmos-sdk/x/auth/tx/config"
	authtypes "github.com/cosmos/cosmos-sdk/x/auth/types"
	_ "github.com/cosmos/cosmos-sdk/x/bank"
	_ "github.com/cosmos/cosmos-sdk/x/consensus"
	_ "github.com/cosmos/cosmos-sdk/x/distribution"
	"github.com/cosmos/cosmos-sdk/x/genutil"
	genutiltypes "github.com/cosmos/cosmos-sdk/x/genutil/types"
	"github.com/cosmos/cosmos-sdk/x/gov"
	govclient "github.com/cosmos/cosmos-sdk/x/gov/client"
	_ "github.com/cosmos/cosmos-sdk/x/staking"
)

// DefaultNodeHome is where `appd` keeps its home unless --home says otherwise.
var DefaultNodeHome = func() string {
	home, err := os.UserHomeDir()
	if err != nil {
		panic(err)
	}
	return filepath.Join(home, ".appd")
}()

// The module accounts and which of them may not receive funds (as in the SDK's app configs).
var (
	moduleAccPerms = []*authmodulev1.ModuleAccountPermission{
		{Account: authtypes.FeeCollectorName},
		{Account: "distribution"},
		{Account: "bonded_tokens_pool", Permissions: []string{authtypes.Burner, "staking"}},
		{Account: "not_bonded_tokens_pool", Permissions: []string{authtypes.Burner, "staking"}},
		{Account: "gov", Permissions: []string{authtypes.Burner}},
	}
	blockedAccounts = []string{authtypes.FeeCollectorName, "distribution", "bonded_tokens_pool", "not_bonded_tokens_pool"}
)

// appConfig is the app wiring: the runtime's block order and each module's config, plus what this line adds.
func appConfig() depinject.Config {
	modules := []*appv1alpha1.ModuleConfig{
		{
			Name: runtime.ModuleName,
			Config: appconfig.WrapAny(&runtimev1alpha1.Module{
				AppName:           "appd",
				PreBlockers:       []string{"upgrade", "auth"}, // upgrade first (the SDK requires it); auth has one from v0.53 on (unordered txs)
				BeginBlockers:     append([]string{"distribution", "staking"}, lineBeginBlockers...),
				EndBlockers:       []string{"bank", "gov", "staking"}, // bank first: v0.54 asks it (it has no end blocker before)
				OverrideStoreKeys: []*runtimev1alpha1.StoreKeyConfig{{ModuleName: authtypes.ModuleName, KvStoreKey: "acc"}},
				// genutil after staking, so the gentxs find the bonded pool; upgrade records the version map.
				InitGenesis: append([]string{"auth", "bank", "distribution", "staking", "gov", "genutil", "upgrade", "consensus"}, lineInitGenesis...),
			}),
		},
		{Name: authtypes.ModuleName, Config: appconfig.WrapAny(&authmodulev1.Module{Bech32Prefix: "cosmos", ModuleAccountPermissions: moduleAccPerms})},
		{Name: "bank", Config: appconfig.WrapAny(&bankmodulev1.Module{BlockedModuleAccountsOverride: blockedAccounts})},
		{Name: "staking", Config: appconfig.WrapAny(&stakingmodulev1.Module{})},
		{Name: "distribution", Config: appconfig.WrapAny(&distrmodulev1.Module{})},
		{Name: "gov", Config: appconfig.WrapAny(&govmodulev1.Module{})},
		{Name: "consensus", Config: appconfig.WrapAny(&consensusmodulev1.Module{})},
		{Name: "upgrade", Config: appconfig.WrapAny(&upgrademodulev1.Module{})},
		{Name: genutiltypes.ModuleName, Config: appconfig.WrapAny(&genutilmodulev1.Module{})},
		{Name: "tx", Config: appconfig.WrapAny(&txconfigv1.Config{})},
	}
	return depinject.Configs(
		appconfig.Compose(&appv1alpha1.Config{Modules: append(modules, lineModules...)}),
		// genutil validates gentxs with the default validator; gov has no legacy proposal handlers.
		depinject.Supply(map[string]module.AppModuleBasic{
			genutiltypes.ModuleName: genutil.NewAppModuleBasic(genutiltypes.DefaultMessageValidator),
			"gov":                   gov.NewAppModuleBasic([]govclient.ProposalHandler{}),
		}),
	)
}

// App is the chain: the runtime app and the keeper this line's upgrade handlers need.
type App struct {
	*runtime.App
	UpgradeKeeper *UpgradeKeeper
}

var _ servertypes.Application = (*App)(nil)

// NewApp wires the modules, builds the app (`build`: the line's AppBuilder.Build call, see line.go), registers
// this line's upgrade handlers (and store loader) and loads the latest store.
func NewApp(logger Logger, appOpts servertypes.AppOptions, build func(*runtime.AppBuilder) *runtime.App) *App {
	app := &App{}
	var builder *runtime.AppBuilder
	if err := depinject.Inject(depinject.Configs(appConfig(), depinject.Supply(appOpts, logger)), &builder, &app.UpgradeKeeper); err != nil {
		panic(err)
	}
	app.App = build(builder)
	app.registerUpgrades()
	if err := app.Load(true); err != nil {
		panic(err)
	}
	return app
}

// errNoExport: `appd export` is not part of what this peer is for.
var errNoExport = errors.New("appd does not export state")
